import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiProduces, ApiQuery, ApiResponse, getSchemaPath } from '../../common/http/api-docs.js';
import { FetCode } from '../../common/errors/fet-code.js';
import { errorDescription, errorExamples, type ErrorCases } from '../../common/http/api-error-response.js';
import { ErrorEnvelopeDto } from '../../common/http/error-envelope.dto.js';
import { RAW_RESULT_CONTENT_TYPE, RESULT_HEADERS } from './job-result.service.js';

const EXAMPLE_ID = '0190f3c2-0000-7000-8000-000000000000';
const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/**
 * An error answer with an example envelope per code. Spelled out rather than with `type`: the
 * route produces two media types, and Swagger would list the envelope under both, while errors
 * are always JSON.
 */
function jsonError(status: number, cases: ErrorCases) {
  return ApiResponse({
    status,
    description: errorDescription(cases),
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) }, examples: errorExamples(cases) } },
  });
}

/** The Swagger description of GET /v1/fetcher/{id}/result. */
export function ApiResultDownload(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ApiOperation({
      summary: 'Download a completed job’s result',
      description:
        'Streams the decrypted JSON, verified on the way out against the job’s resultHmac, result.sha256 and result.sizeBytes. ' +
        'Should the stored object fail verification after the first bytes went out, the connection is cut: the body is then shorter ' +
        'than Content-Length, never a clean end. With raw=true, streams the stored object as it is (standard base64 of nonce ‖ ' +
        'AES-256-GCM ciphertext ‖ tag) for a consumer that holds the derived keys and verifies it itself.',
    }),
    ApiProduces('application/json', RAW_RESULT_CONTENT_TYPE),
    ApiQuery({
      name: 'raw',
      required: false,
      enum: ['true', 'false'],
      description: `true: the sealed object as stored (${RAW_RESULT_CONTENT_TYPE}). Default false.`,
    }),
    ApiResponse({
      status: 200,
      description:
        'The plaintext JSON (Content-Length = result.sizeBytes), or with raw=true the sealed object (Content-Length = its stored size, no ETag)',
      headers: {
        'Content-Length': { description: 'Bytes of the body', schema: { type: 'integer' } },
        ETag: { description: 'Plaintext only: "<sha256>" of the plaintext', schema: { type: 'string', example: `"${SHA256}"` } },
        [RESULT_HEADERS.sha256]: {
          description: 'SHA-256 of the plaintext, hex (the job’s result.sha256)',
          schema: { type: 'string', example: SHA256 },
        },
        [RESULT_HEADERS.hmac]: { description: 'HMAC-SHA256 of the plaintext, hex (the job’s resultHmac)', schema: { type: 'string' } },
        [RESULT_HEADERS.keyVersion]: {
          description: 'Master-key version that sealed the result (the job’s resultKeyVersion)',
          schema: { type: 'string', example: '1' },
        },
      },
      content: {
        'application/json': { schema: { type: 'object', example: { pg_source: { accounts: [{ id: 1, email: 'a@example.com' }] } } } },
        [RAW_RESULT_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary', description: 'Standard base64 text' } },
      },
    }),
    jsonError(400, [
      [FetCode.InvalidPathId, 'invalid job id'],
      [FetCode.InvalidQuery, "raw must be 'true' or 'false'"],
    ]),
    jsonError(404, [
      [
        FetCode.NotFound,
        'It was not possible to find the job entity during the requested flow. Please review the data provided in the request.',
      ],
    ]),
    jsonError(409, [[FetCode.JobNotCompleted, `job ${EXAMPLE_ID} is processing: its result is not ready yet`]]),
    jsonError(410, [[FetCode.ResultDeleted, `the result of job ${EXAMPLE_ID} was deleted (on request, or at the end of its retention)`]]),
    jsonError(500, [
      [
        FetCode.Internal,
        'the result was sealed with key version 1, which is not configured: set APP_ENC_KEY_1 to the master key of that version',
      ],
    ]),
    jsonError(502, [[FetCode.StorageFailed, `the result object of job ${EXAMPLE_ID} is missing from the store`]]),
    jsonError(503, [
      [
        FetCode.ServiceUnavailable,
        `S3 read failed for fetcher-results/external-data/${EXAMPLE_ID}.json: connect ECONNREFUSED 10.0.0.5:9000`,
      ],
    ]),
  );
}
