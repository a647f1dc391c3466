import type { NextFunction, Request, Response } from 'express';
import { assertBodyWithinLimits } from './body-limits.js';

/**
 * Mounted right after the JSON parser, before routing: the DTO step (class-transformer, then
 * class-validator) recurses through the whole body, so a body must be bounded before it runs.
 * A refusal goes to the global filter like a parser error.
 */
export function bodyLimitsMiddleware(request: Request, _response: Response, next: NextFunction): void {
  try {
    assertBodyWithinLimits(request.body);
  } catch (error) {
    return next(error);
  }
  next();
}
