import { STATUS_CODES } from 'node:http';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { FET_CATALOGUE, FetCode } from '../../engine/errors/fet-code.js';
import { FetcherError, type ErrorDetail } from '../../engine/errors/fetcher-error.js';
import { isStoreUnavailable } from './store-unavailable.js';

export interface FetEnvelope {
  code: string;
  title: string;
  message: string;
  fields?: Record<string, string>;
  details?: readonly ErrorDetail[];
  [extra: string]: unknown;
}

/** Errors thrown by body-parser carry an HTTP status and a `type`; they never reach a controller. */
interface BodyParserError {
  status?: number;
  statusCode?: number;
  type?: string;
}

/**
 * The one place where any error becomes an HTTP answer: FetcherErrors keep their code, framework
 * HTTP errors are mapped to the nearest FET code, anything else is a 500 without details.
 */
@Catch()
export class FetExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const { status, body, headers } = this.render(exception);
    if (status >= 500) {
      // A FetcherError or a job store that is down is an expected outcome, one line each; anything
      // else is a bug, with its stack. During an outage every request fails the same way.
      if (exception instanceof FetcherError) this.logger.warn(`${exception.code} ${exception.message}`);
      else if (isStoreUnavailable(exception))
        this.logger.warn(`${FetCode.ServiceUnavailable} job store unavailable (${failureName(exception)})`);
      else this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    }
    for (const [name, value] of Object.entries(headers ?? {})) response.setHeader(name, value);
    response.status(status).json(body);
  }

  render(exception: unknown): { status: number; body: FetEnvelope; headers?: Record<string, string> } {
    if (exception instanceof FetcherError) {
      return {
        status: exception.status,
        headers: exception.headers,
        body: compact({
          code: exception.code,
          title: exception.title,
          message: exception.message,
          fields: exception.fields,
          details: exception.details,
          ...exception.extra,
        }),
      };
    }
    const parserError = exception as BodyParserError;
    if (parserError?.type === 'entity.too.large') return envelope(FetCode.PayloadTooLarge, 'request body exceeds 1 MiB');
    if (parserError?.type === 'entity.parse.failed' || parserError?.type === 'encoding.unsupported') {
      return envelope(FetCode.BadRequest, 'unable to parse request body');
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === HttpStatus.NOT_FOUND) {
        return { status, body: { code: FetCode.NotFound, title: 'Not Found', message: 'route not found' } };
      }
      if (status === HttpStatus.PAYLOAD_TOO_LARGE) return envelope(FetCode.PayloadTooLarge, 'request body exceeds 1 MiB');
      // Express refuses a path parameter that is not valid percent-encoding (`/v1/fetcher/%ZZ`).
      if (status === HttpStatus.BAD_REQUEST && exception.cause instanceof URIError)
        return envelope(FetCode.InvalidPathId, 'invalid path parameter encoding');
      if (status === HttpStatus.BAD_REQUEST) return envelope(FetCode.BadRequest, 'unable to parse request body');
      if (status < 500) {
        // The HTTP reason phrase (`Unsupported Media Type`), not the class name of the framework error.
        return { status, body: { code: FetCode.BadRequest, title: STATUS_CODES[status] ?? 'Bad Request', message: exception.message } };
      }
    }
    if (isStoreUnavailable(exception)) {
      return envelope(FetCode.ServiceUnavailable, 'the job store is unavailable right now; please retry shortly');
    }
    return envelope(FetCode.Internal, 'The server encountered an unexpected error. Please try again later or contact support.');
  }
}

/** The driver's error code (ECONNREFUSED, 57P01…) or class: a driver message can name a host or a user. */
function failureName(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && code.length > 0) return code;
  return typeof name === 'string' ? name : 'unknown';
}

function envelope(code: FetCode, message: string) {
  const { status, title } = FET_CATALOGUE[code];
  return { status, body: { code, title, message } };
}

/** Drops empty `fields`/`details` and undefined extras. */
function compact(body: FetEnvelope): FetEnvelope {
  const { fields, details, ...rest } = body;
  const out = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as FetEnvelope;
  if (fields && Object.keys(fields).length > 0) out.fields = fields;
  if (details && details.length > 0) out.details = details;
  return out;
}
