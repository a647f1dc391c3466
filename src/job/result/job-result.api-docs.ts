import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiQuery, ApiResponse, getSchemaPath } from '../../common/http/api-docs.js';
import { JSON_RESULT_SCHEMA } from '../../common/http/json-shapes.js';
import { OUTPUT_COMPRESSIONS, OUTPUT_FORMATS } from '../../engine/formats/output-format.js';
import { Access } from '../../auth/access.decorators.js';
import { ApiErrors } from '../../auth/api-auth.decorator.js';
import { FetCode } from '../../engine/errors/fet-code.js';
import { EXAMPLE_ID, invalidId, notFound, STORE_UNAVAILABLE } from '../../common/http/api-error-cases.js';
import { mergeErrorAnswers } from '../../common/http/api-error-response.js';
import { RAW_RESULT_CONTENT_TYPE, RESULT_HEADERS } from './job-result.service.js';

/** A per-table result's manifest (csv, parquet): what resultPath holds, its parts as result.parts lists them. */
const RESULT_MANIFEST_SCHEMA = {
  type: 'object',
  properties: {
    version: { type: 'integer', enum: [1] },
    format: { type: 'string', enum: [...OUTPUT_FORMATS] },
    compression: { type: 'string', enum: [...OUTPUT_COMPRESSIONS] },
    parts: { type: 'array', items: { $ref: getSchemaPath('ResultPartDto') } },
  },
  required: ['version', 'format', 'compression', 'parts'],
  additionalProperties: false,
};

const SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The headers of a verified download (the result, a manifest or a part), each of the object sent. */
const DOWNLOAD_HEADERS = {
  'Content-Length': { description: 'Bytes of the body', schema: { type: 'integer' } },
  'Content-Encoding': {
    description: 'Plaintext of a compressed result or part only: gzip or zstd. The bytes are sent as stored; the digests are of them.',
    schema: { type: 'string', example: 'gzip' },
  },
  ETag: { description: 'Plaintext only: "<sha256>" of the bytes sent', schema: { type: 'string', example: `"${SHA256}"` } },
  [RESULT_HEADERS.sha256]: {
    description: 'SHA-256 of the plaintext, hex (as the job records it)',
    schema: { type: 'string', example: SHA256 },
  },
  [RESULT_HEADERS.hmac]: { description: 'HMAC-SHA256 of the plaintext, hex (as the job records it)', schema: { type: 'string' } },
  [RESULT_HEADERS.keyVersion]: {
    description: 'Master-key version that sealed the result (the job’s resultKeyVersion)',
    schema: { type: 'string', example: '1' },
  },
};

const RAW_QUERY = ApiQuery({
  name: 'raw',
  required: false,
  enum: ['true', 'false'],
  description: `true: the sealed object as stored (${RAW_RESULT_CONTENT_TYPE}). Default false.`,
});

/** What both download routes answer besides their 200. */
const DOWNLOAD_ERRORS = mergeErrorAnswers(invalidId('job'), notFound('job'), {
  400: [
    [FetCode.InvalidQuery, "raw must be 'true' or 'false'", { label: 'raw', fields: { raw: "raw must be 'true' or 'false'" } }],
    [
      FetCode.InvalidQuery,
      'unknown query parameter(s): format',
      { label: 'unknown parameter', fields: { format: 'unknown query parameter(s): format' } },
    ],
  ],
  409: [
    [FetCode.JobNotCompleted, `job ${EXAMPLE_ID} is processing: its result is not ready yet`],
    [FetCode.JobNotCompleted, `job ${EXAMPLE_ID} failed (FET-1060): it has no result`, { label: 'failed' }],
  ],
  410: [[FetCode.ResultDeleted, `the result of job ${EXAMPLE_ID} was deleted (on request, or at the end of its retention)`]],
  500: [
    [
      FetCode.Internal,
      'the result was sealed with key version 1, which is not configured: set APP_ENC_KEY_1 to the master key of that version',
    ],
  ],
  502: [
    [FetCode.StorageFailed, `the result object of job ${EXAMPLE_ID} is missing from the store`],
    [FetCode.StorageFailed, `the result object of job ${EXAMPLE_ID} could not be read from the store`, { label: 'unreadable' }],
  ],
  503: [
    STORE_UNAVAILABLE,
    [
      FetCode.ServiceUnavailable,
      `S3 read failed for fetcher-results/external-data/${EXAMPLE_ID}.json: connect ECONNREFUSED 10.0.0.5:9000`,
      { label: 'object store' },
    ],
  ],
});

/** The Swagger description of GET /v1/fetcher/{id}/result. */
export function ApiResultDownload(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: 'Download a completed job’s result',
      description:
        'Streams the decrypted JSON, verified on the way out against the job’s resultHmac, result.sha256 and result.sizeBytes. ' +
        'Should the stored object fail verification after the first bytes went out, the connection is cut: the body is then shorter ' +
        'than Content-Length, never a clean end. With raw=true, streams the stored object as it is (standard base64 of nonce ‖ ' +
        'AES-256-GCM ciphertext ‖ tag) for a consumer that holds the derived keys and verifies it itself.',
    }),
    ApiProduces('application/json', RAW_RESULT_CONTENT_TYPE),
    RAW_QUERY,
    ApiResponse({
      status: 200,
      description:
        'The plaintext (Content-Length = result.sizeBytes): the result as its output says (json: application/json; ndjson: ' +
        'application/x-ndjson; compressed: with Content-Encoding), or a per-table result’s manifest (application/json, ' +
        '{version, format, compression, parts}). With raw=true the sealed object (Content-Length = its stored size, no ETag)',
      headers: DOWNLOAD_HEADERS,
      content: {
        'application/json': {
          schema: {
            anyOf: [JSON_RESULT_SCHEMA, RESULT_MANIFEST_SCHEMA],
            description: 'configName → table → rows (the README walkthrough’s job shown), or a per-table result’s manifest',
            example: {
              pg_source: {
                'accounting.invoices': [{ id: 10, account_id: 1, amount: '42.00', due: '2026-03-01' }],
                accounts: [{ id: 1, email: 'ana@example.com', balance: '100.50' }],
              },
            },
          },
        },
        'application/x-ndjson': { schema: { type: 'string', description: 'One {"datasource","table","row"} object per line' } },
        [RAW_RESULT_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary', description: 'Standard base64 text' } },
      },
    }),
    ApiErrors(Access.Principal, DOWNLOAD_ERRORS),
  );
}

/** The Swagger description of GET /v1/fetcher/{id}/result/{datasource}/{table}. */
export function ApiPartDownload(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: 'Download one table’s part of a completed per-table (csv, parquet) result',
      description:
        'Streams the part file as listed in result.parts (the table is its result key, URL-encoded: public.orders, a%2Fb), ' +
        'verified on the way out against its sha256, hmac and sizeBytes exactly as GET …/result verifies the result: a mismatch ' +
        'after the first bytes cuts the connection. A compressed part is sent as stored with its Content-Encoding. With raw=true, ' +
        'the sealed part object as stored.',
    }),
    ApiProduces('text/csv', 'application/vnd.apache.parquet', RAW_RESULT_CONTENT_TYPE),
    RAW_QUERY,
    ApiResponse({
      status: 200,
      description:
        'The part file (Content-Length = its sizeBytes; csv: text/csv; charset=utf-8; header=present, parquet: ' +
        'application/vnd.apache.parquet), or with raw=true its sealed object',
      headers: DOWNLOAD_HEADERS,
      content: {
        'text/csv': { schema: { type: 'string', example: 'id,email,balance\n1,ana@example.com,100.50\n' } },
        'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
        [RAW_RESULT_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary', description: 'Standard base64 text' } },
      },
    }),
    ApiErrors(
      Access.Principal,
      mergeErrorAnswers(DOWNLOAD_ERRORS, {
        404: [
          [
            FetCode.NotFound,
            `the result of job ${EXAMPLE_ID} has no table "public.orders" of datasource "pg_source"`,
            {
              label: 'no such part',
              details: [
                {
                  type: 'part_not_found',
                  datasource: 'pg_source',
                  table: 'public.orders',
                  message: 'no part of the result is of this table',
                },
              ],
            },
          ],
          [
            FetCode.NotFound,
            `the result of job ${EXAMPLE_ID} is one json object and has no parts: GET …/result downloads it`,
            { label: 'one object' },
          ],
        ],
      }),
    ),
  );
}
