import { ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { FetCode } from '../errors/fet-code.js';
import { RequestValidationError } from '../errors/fetcher.error.js';

/** Query strings get their own codes: FET-0406 for a page limit above the maximum, FET-0405 otherwise. */
export const queryValidationPipe = new ValidationPipe({
  transform: true,
  whitelist: false,
  forbidNonWhitelisted: false,
  exceptionFactory: (errors: ValidationError[]) => {
    const fields = Object.fromEntries(
      errors.map((error) => [error.property, Object.values(error.constraints ?? {}).join('; ')]),
    );
    const limitTooLarge = errors.some((error) => error.property === 'limit' && error.constraints?.max);
    if (limitTooLarge) {
      return new RequestValidationError(
        FetCode.PageLimitExceeded,
        'The pagination limit exceeds the maximum allowed of 100 items per page. Please verify the limit and try again.',
        { fields },
      );
    }
    const names = Object.keys(fields).join(', ');
    return new RequestValidationError(FetCode.InvalidQuery, `invalid query parameter(s): ${names}`, { fields });
  },
});
