import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from '../errors/request-errors.js';

const PRODUCT_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** Parses `X-Product-Name`: trimmed, lower-cased, ≤ 100 of [A-Za-z0-9_-]. */
export function parseProductName(raw: string | undefined, required: boolean): string | undefined {
  if (raw === undefined || (raw === '' && !required)) {
    if (required) throw invalid('X-Product-Name header is required and must not be empty');
    return undefined;
  }
  const value = raw.trim().toLowerCase();
  if (value === '') {
    throw invalid(
      required ? 'X-Product-Name header is required and must not be empty' : 'X-Product-Name header must not be empty or whitespace-only',
    );
  }
  if (value.length > 100) throw invalid('X-Product-Name must not exceed 100 characters');
  if (!PRODUCT_NAME_PATTERN.test(value)) {
    throw invalid('X-Product-Name can only contain alphanumeric characters, underscores, and hyphens');
  }
  return value;
}

function invalid(message: string): RequestValidationError {
  return new RequestValidationError(FetCode.InvalidHeader, message);
}

/** `@ProductName()` — required; `@ProductName({ optional: true })` — a list filter. */
export const ProductName = createParamDecorator((options: { optional?: boolean } | undefined, ctx: ExecutionContext) => {
  const request = ctx.switchToHttp().getRequest<Request>();
  const header = request.headers['x-product-name'];
  return parseProductName(Array.isArray(header) ? header[0] : header, !options?.optional);
});
