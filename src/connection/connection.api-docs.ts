import { FetCode } from '../engine/errors/fet-code.js';
import {
  CREDENTIAL_KEY_MISSING,
  INVALID_PRODUCT_HEADER,
  invalidField,
  invalidId,
  JSON_BODY,
  LIST_QUERY,
  missingFields,
  notFound,
  STORE_UNAVAILABLE,
} from '../common/http/api-error-cases.js';
import { mergeErrorAnswers, type ErrorAnswers, type ErrorCase } from '../common/http/api-error-response.js';

/**
 * The Swagger answers of the connection routes (ConnectionController), with the messages the
 * connection services, rules, probes and the SSRF guard really give.
 */

const SSL_MODES = 'disable, allow, prefer, require, verify-ca, verify-full';
const INVALID_SSL_MODE: ErrorCase = [
  FetCode.InvalidSslMode,
  `Invalid SSL mode. The provided SSL mode 'bogus' is not supported for POSTGRESQL; use one of: ${SSL_MODES}.`,
  { fields: { 'ssl.mode': `must be one of ${SSL_MODES}` } },
];
const FORBIDDEN_HOST: ErrorCase = [
  FetCode.ForbiddenHost,
  'Host is not a valid external database endpoint',
  { fields: { host: 'this host is not allowed: loopback, private, link-local and cloud metadata addresses are refused' } },
];
const ORACLE_SERVICE_NAME: ErrorCase = [
  FetCode.MissingFields,
  'Oracle connections need metadata.serviceName',
  { label: 'metadata.serviceName', fields: { 'metadata.serviceName': 'metadata.serviceName is a required field for ORACLE' } },
];
const PRODUCT_HEADER_REQUIRED: ErrorCase = [
  FetCode.InvalidHeader,
  'X-Product-Name header is required and must not be empty',
  { label: 'missing' },
];
const NOT_ACTING_FOR: ErrorCase = [FetCode.Forbidden, "This credential does not act for product 'billing'", { label: 'X-Product-Name' }];
const internal = (action: 'modified' | 'deleted' | 'assigned'): ErrorCase => [
  FetCode.InternalDatasource,
  `'warehouse' is an internal datasource declared by DATASOURCE_WAREHOUSE_* variables; it cannot be ${action} through the API`,
];
const PASSWORD_REQUIRED: ErrorCase = [
  FetCode.PasswordRequired,
  "Connection 'pg_source' has no password: it was cleared when the connection's type, host, port, database or SSL settings changed. PATCH a password to use it again.",
  { details: [{ type: 'password_required', datasource: 'pg_source' }] },
];
const DUPLICATE_NAME: ErrorCase = [
  FetCode.DuplicateConfigName,
  'An entity of type connection with the same unique attributes already exists. Please use different values to avoid conflicts and review the data provided in the request.',
  { fields: { configName: "product 'reporter' already has a connection named 'pg_source'" } },
];
const ACTIVE_JOBS = (verb: 'update' | 'delete'): ErrorCase => [FetCode.JobInProgress, `cannot ${verb} connection with active jobs`];
const connectFailed = (reason: string, detail: string, label?: string): ErrorCase => [
  FetCode.ConnectionTestFailed,
  `Cannot connect to PostgreSQL datasource "pg_source": ${detail}`,
  { label, extra: { reason } },
];
const CONNECT_FAILURES: ErrorCase[] = [
  connectFailed('auth_failed', 'authentication failed: the server rejected the credentials or does not allow this login'),
  connectFailed('unreachable', 'cannot reach 127.0.0.1:5432 (connection refused)', 'unreachable'),
  connectFailed('database_not_found', 'database "source" does not exist on 127.0.0.1:5432', 'database_not_found'),
];
const DISCOVERY_TIMEOUT: ErrorCase = [
  FetCode.SchemaDiscoveryTimeout,
  "datasource 'pg_source' did not answer its schema discovery within 30000 ms; the query was cancelled",
  { extra: { reason: 'timeout' } },
];
const DISCOVERY_BUSY: ErrorCase = [
  FetCode.SchemaDiscoveryTimeout,
  "cannot discover datasource 'pg_source' within 30000 ms: too many connection tests and schema discoveries are running; retry shortly",
  { label: 'no free slot', extra: { reason: 'timeout' } },
];
const CATALOG_TOO_LARGE: ErrorCase = [
  FetCode.SchemaCatalogTooLarge,
  "datasource 'pg_source' sent more than 4194304 bytes of schema catalog; discovery stopped and the connection was closed",
  { extra: { reason: 'too_large', maxBytes: 4194304 } },
];
const DISCOVERIES_RATE_LIMITED: ErrorCase = [
  FetCode.RateLimited,
  'Schema discovery limit of 30 per minute reached. Try again in 42 seconds.',
  { extra: { retryAfterSeconds: 42 } },
];
const STORE: ErrorAnswers = { 503: [STORE_UNAVAILABLE] };
const CONNECTION_ID = mergeErrorAnswers(invalidId('connection'), notFound('connection'));

export const CREATE_CONNECTION_ANSWERS = mergeErrorAnswers(JSON_BODY, STORE, {
  400: [
    missingFields('type', 'host', 'port', 'databaseName', 'userName', 'password'),
    invalidField('port', 'port must be between 1 and 65535'),
    ORACLE_SERVICE_NAME,
    PRODUCT_HEADER_REQUIRED,
    INVALID_PRODUCT_HEADER,
    INVALID_SSL_MODE,
    FORBIDDEN_HOST,
  ],
  403: [NOT_ACTING_FOR, [FetCode.Forbidden, 'This credential acts for no product', { label: 'no product' }]],
  409: [
    DUPLICATE_NAME,
    [
      FetCode.DuplicateConfigName,
      "'warehouse' is the name of an internal datasource",
      { label: 'reserved', fields: { configName: "'warehouse' is reserved by an internal datasource" } },
    ],
  ],
});

const typeInvalid = 'type must be one of POSTGRESQL, MYSQL, SQL_SERVER, ORACLE, MONGODB';

export const LIST_CONNECTIONS_ANSWERS = mergeErrorAnswers(LIST_QUERY, STORE, {
  400: [[FetCode.InvalidQuery, typeInvalid, { label: 'type', fields: { type: typeInvalid } }], INVALID_PRODUCT_HEADER],
  403: [NOT_ACTING_FOR],
});

export const UNASSIGNED_ANSWERS = mergeErrorAnswers(LIST_QUERY, STORE);

const mappedFieldsEmpty = 'mappedFields cannot be empty';

export const VALIDATE_SCHEMA_ANSWERS = mergeErrorAnswers(JSON_BODY, STORE, CREDENTIAL_KEY_MISSING, {
  400: [
    missingFields('mappedFields'),
    [
      FetCode.InvalidDataRequest,
      mappedFieldsEmpty,
      { fields: { mappedFields: mappedFieldsEmpty }, details: [{ type: 'invalid_shape', message: mappedFieldsEmpty }] },
    ],
    [
      FetCode.LimitExceeded,
      "maximum 50 fields allowed per table, got 51 for 'pg_source.accounts'",
      {
        details: [
          {
            type: 'limit_exceeded',
            datasource: 'pg_source',
            table: 'accounts',
            message: "maximum 50 fields allowed per table, got 51 for 'pg_source.accounts'",
          },
        ],
      },
    ],
    FORBIDDEN_HOST,
    INVALID_PRODUCT_HEADER,
    [
      FetCode.InvalidHeader,
      "'pg_source' names a connection in several products (billing, reporter): name the product in the X-Product-Name header",
      { details: [{ type: 'ambiguous_datasource', datasource: 'pg_source' }] },
    ],
  ],
  409: [PASSWORD_REQUIRED],
  422: [
    [
      FetCode.SchemaValidationFailed,
      'Schema validation found 3 inconsistencies.',
      {
        details: [
          { type: 'datasource_not_found', datasource: 'pg_other' },
          { type: 'field_not_found', datasource: 'pg_source', table: 'accounts', field: 'emial' },
          { type: 'table_not_found', datasource: 'pg_source', table: 'acounts' },
        ],
      },
    ],
  ],
  429: [DISCOVERIES_RATE_LIMITED],
  502: [CATALOG_TOO_LARGE],
  504: [DISCOVERY_TIMEOUT, DISCOVERY_BUSY],
});

export const ASSIGN_ANSWERS = mergeErrorAnswers(CONNECTION_ID, STORE, {
  400: [PRODUCT_HEADER_REQUIRED, INVALID_PRODUCT_HEADER],
  403: [internal('assigned')],
  409: [[FetCode.AlreadyAssigned, 'The connection is already assigned to a product and cannot be reassigned.']],
});

const rateLimited = (limit: number, label: string): ErrorCase => [
  FetCode.RateLimited,
  `Connection test limit of ${limit} per minute reached. Try again in 42 seconds.`,
  { label, extra: { retryAfterSeconds: 42 } },
];

export const TEST_ANSWERS = mergeErrorAnswers(CONNECTION_ID, STORE, CREDENTIAL_KEY_MISSING, {
  400: [FORBIDDEN_HOST],
  409: [PASSWORD_REQUIRED],
  429: [rateLimited(10, 'this connection'), rateLimited(60, 'this principal')],
  502: [
    ...CONNECT_FAILURES,
    connectFailed('timeout', 'no answer from 127.0.0.1:5432 within 10000 ms', 'timeout'),
    connectFailed('tls', 'TLS required by the SSL mode, but the server does not support SSL', 'tls'),
  ],
});

export const SCHEMA_ANSWERS = mergeErrorAnswers(CONNECTION_ID, STORE, CREDENTIAL_KEY_MISSING, {
  400: [FORBIDDEN_HOST],
  409: [PASSWORD_REQUIRED],
  429: [DISCOVERIES_RATE_LIMITED],
  502: [
    ...CONNECT_FAILURES,
    [
      FetCode.SchemaDiscoveryFailed,
      'Failed to retrieve database schema information: permission denied for schema accounting',
      { extra: { reason: 'unknown' } },
    ],
    CATALOG_TOO_LARGE,
  ],
  504: [DISCOVERY_TIMEOUT, DISCOVERY_BUSY],
});

export const GET_CONNECTION_ANSWERS = mergeErrorAnswers(CONNECTION_ID, STORE);

export const UPDATE_CONNECTION_ANSWERS = mergeErrorAnswers(CONNECTION_ID, JSON_BODY, STORE, {
  400: [
    [FetCode.BadRequest, 'empty request body: send at least one field to change', { label: 'empty body' }],
    invalidField('port', 'port must be between 1 and 65535'),
    ORACLE_SERVICE_NAME,
    INVALID_SSL_MODE,
    FORBIDDEN_HOST,
  ],
  403: [internal('modified')],
  409: [ACTIVE_JOBS('update'), DUPLICATE_NAME],
});

export const DELETE_CONNECTION_ANSWERS = mergeErrorAnswers(CONNECTION_ID, STORE, {
  403: [internal('deleted')],
  409: [ACTIVE_JOBS('delete')],
});
