import { HttpStatus } from '@nestjs/common';

/**
 * The FET error catalogue: every code the API or a job can carry, with the HTTP status and title
 * it is rendered with. Codes up to FET-1062 follow the original service; FET-11xx are job
 * failures the original reported only as free text; FET-0010/0011 (authentication and
 * authorization) and FET-1024 (a connection whose password was cleared) are Fetcher's own.
 */
export enum FetCode {
  BadRequest = 'FET-0001',
  Internal = 'FET-0002',
  ServiceUnavailable = 'FET-0003',
  Unauthenticated = 'FET-0010',
  Forbidden = 'FET-0011',
  InvalidDataRequest = 'FET-0401',
  MissingFields = 'FET-0402',
  InvalidHeader = 'FET-0403',
  InvalidPathId = 'FET-0404',
  InvalidQuery = 'FET-0405',
  PageLimitExceeded = 'FET-0406',
  InvalidSortOrder = 'FET-0407',
  InvalidDate = 'FET-0408',
  InvalidDateRange = 'FET-0409',
  InvalidSslMode = 'FET-0413',
  ForbiddenHost = 'FET-0414',
  PayloadTooLarge = 'FET-0415',
  NotFound = 'FET-1001',
  DuplicateConfigName = 'FET-1002',
  NotAssigned = 'FET-1014',
  AlreadyAssigned = 'FET-1015',
  ProductMismatch = 'FET-1016',
  MissingDatasource = 'FET-1020',
  JobInProgress = 'FET-1021',
  InternalDatasource = 'FET-1023',
  PasswordRequired = 'FET-1024',
  ConnectionDown = 'FET-1040',
  ConnectionTestFailed = 'FET-1041',
  SchemaDiscoveryFailed = 'FET-1042',
  SchemaValidationFailed = 'FET-1060',
  LimitExceeded = 'FET-1061',
  RateLimited = 'FET-1070',
  ResultTooLarge = 'FET-1101',
  ExtractionTimeout = 'FET-1102',
  DatasourceQueryFailed = 'FET-1103',
  StorageFailed = 'FET-1104',
  ExtractionCancelled = 'FET-1105',
  JobAbandoned = 'FET-1106',
}

export interface FetCodeInfo {
  readonly status: HttpStatus;
  readonly title: string;
}

export const FET_CATALOGUE: Readonly<Record<FetCode, FetCodeInfo>> = {
  [FetCode.BadRequest]: { status: HttpStatus.BAD_REQUEST, title: 'Bad Request' },
  [FetCode.Internal]: { status: HttpStatus.INTERNAL_SERVER_ERROR, title: 'Internal Server Error' },
  [FetCode.ServiceUnavailable]: { status: HttpStatus.SERVICE_UNAVAILABLE, title: 'Service Unavailable' },
  [FetCode.Unauthenticated]: { status: HttpStatus.UNAUTHORIZED, title: 'Unauthorized' },
  [FetCode.Forbidden]: { status: HttpStatus.FORBIDDEN, title: 'Forbidden' },
  [FetCode.InvalidDataRequest]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid Data Request' },
  [FetCode.MissingFields]: { status: HttpStatus.BAD_REQUEST, title: 'Missing Fields in Request' },
  [FetCode.InvalidHeader]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid header' },
  [FetCode.InvalidPathId]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid Path Parameter' },
  [FetCode.InvalidQuery]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid Query Parameter' },
  [FetCode.PageLimitExceeded]: { status: HttpStatus.BAD_REQUEST, title: 'Pagination Limit Exceeded' },
  [FetCode.InvalidSortOrder]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid Sort Order' },
  [FetCode.InvalidDate]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid Date Format Error' },
  [FetCode.InvalidDateRange]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid Final Date Error' },
  [FetCode.InvalidSslMode]: { status: HttpStatus.BAD_REQUEST, title: 'Invalid SSL Mode' },
  [FetCode.ForbiddenHost]: { status: HttpStatus.BAD_REQUEST, title: 'Forbidden Host' },
  [FetCode.PayloadTooLarge]: { status: HttpStatus.PAYLOAD_TOO_LARGE, title: 'Payload Too Large' },
  [FetCode.NotFound]: { status: HttpStatus.NOT_FOUND, title: 'Entity Not Found' },
  [FetCode.DuplicateConfigName]: { status: HttpStatus.CONFLICT, title: 'Conflict' },
  [FetCode.NotAssigned]: { status: HttpStatus.BAD_REQUEST, title: 'Connection Not Assigned' },
  [FetCode.AlreadyAssigned]: { status: HttpStatus.CONFLICT, title: 'Connection Already Assigned' },
  [FetCode.ProductMismatch]: { status: HttpStatus.BAD_REQUEST, title: 'Product Mismatch' },
  [FetCode.MissingDatasource]: { status: HttpStatus.BAD_REQUEST, title: 'Missing Data Source' },
  [FetCode.JobInProgress]: { status: HttpStatus.CONFLICT, title: 'Job In Progress' },
  [FetCode.InternalDatasource]: { status: HttpStatus.FORBIDDEN, title: 'Internal Datasource' },
  [FetCode.PasswordRequired]: { status: HttpStatus.CONFLICT, title: 'Password Required' },
  [FetCode.ConnectionDown]: { status: HttpStatus.BAD_REQUEST, title: 'Connection Down' },
  [FetCode.ConnectionTestFailed]: { status: HttpStatus.BAD_GATEWAY, title: 'Database Connection Error' },
  [FetCode.SchemaDiscoveryFailed]: { status: HttpStatus.BAD_GATEWAY, title: 'Schema Retrieval Error' },
  [FetCode.SchemaValidationFailed]: { status: HttpStatus.UNPROCESSABLE_ENTITY, title: 'Schema validation failed' },
  [FetCode.LimitExceeded]: { status: HttpStatus.BAD_REQUEST, title: 'Validation Limit Exceeded' },
  [FetCode.RateLimited]: { status: HttpStatus.TOO_MANY_REQUESTS, title: 'Rate Limit Exceeded' },
  [FetCode.ResultTooLarge]: { status: HttpStatus.UNPROCESSABLE_ENTITY, title: 'Result Too Large' },
  [FetCode.ExtractionTimeout]: { status: HttpStatus.GATEWAY_TIMEOUT, title: 'Extraction Timeout' },
  [FetCode.DatasourceQueryFailed]: { status: HttpStatus.BAD_GATEWAY, title: 'Datasource Query Failed' },
  [FetCode.StorageFailed]: { status: HttpStatus.BAD_GATEWAY, title: 'Result Storage Failed' },
  [FetCode.ExtractionCancelled]: { status: HttpStatus.SERVICE_UNAVAILABLE, title: 'Extraction Cancelled' },
  [FetCode.JobAbandoned]: { status: HttpStatus.INTERNAL_SERVER_ERROR, title: 'Job Abandoned' },
};
