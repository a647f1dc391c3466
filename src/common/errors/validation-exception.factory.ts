import type { ValidationError } from 'class-validator';
import { FetCode } from '../../engine/errors/fet-code.js';
import { RequestValidationError } from './request-errors.js';

const REQUIRED_CONSTRAINTS = new Set(['isDefined', 'isNotEmpty', 'requiredField']);

/**
 * Turns class-validator output into one FET error naming every offending field by its JSON path.
 * Missing required fields win (FET-0402, listing only those); anything else is FET-0001.
 */
export function validationExceptionFactory(errors: ValidationError[]): RequestValidationError {
  const required: Record<string, string> = {};
  const invalid: Record<string, string> = {};
  const visit = (error: ValidationError, prefix: string) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      if (constraint === 'whitelistValidation') {
        invalid[path] = `${path} is not a known field`;
      } else if (REQUIRED_CONSTRAINTS.has(constraint) && error.value === undefined) {
        required[path] ??= `${path} is a required field`;
      } else {
        invalid[path] ??= message.replace(error.property, path);
      }
    }
    for (const child of error.children ?? []) visit(child, path);
  };
  for (const error of errors) visit(error, '');

  if (Object.keys(required).length > 0) {
    return new RequestValidationError(
      FetCode.MissingFields,
      'Your request is missing one or more required fields. Please refer to the documentation to ensure all necessary fields are included in your request.',
      { fields: required },
    );
  }
  const unknown = Object.entries(invalid).filter(([, message]) => message.endsWith('is not a known field'));
  const message =
    unknown.length > 0
      ? `unknown field(s) in request: ${unknown.map(([path]) => path).join(', ')}`
      : 'The server could not understand the request due to malformed syntax. Please check the listed fields and try again.';
  return new RequestValidationError(FetCode.BadRequest, message, { fields: invalid });
}
