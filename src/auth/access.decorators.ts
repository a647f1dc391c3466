import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AuthError } from './auth.error.js';
import type { Principal } from './principal.js';

/** Who may call a route. Every route says it, so a new route cannot be open by accident. */
export enum Access {
  /** No credential needed (health, readiness, version, metrics). */
  Public = 'public',
  /** Any authenticated principal; what it may touch is then scoped to its products. */
  Principal = 'principal',
  /** Operators only (keys in AUTH_ADMIN_KEYS, or tokens with the fetcher:admin role). */
  Operator = 'operator',
}

export const ACCESS_METADATA = 'fetcher:access';

/** Declares who may call the route or every route of the controller. */
export const Allow = (access: Access) => SetMetadata(ACCESS_METADATA, access);

const PRINCIPAL = Symbol('fetcher.principal');

type WithPrincipal = Request & { [PRINCIPAL]?: Principal };

export function attachPrincipal(request: Request, principal: Principal): void {
  (request as WithPrincipal)[PRINCIPAL] = principal;
}

/** The authenticated caller, or undefined on a public route called without a valid credential. */
export function principalOf(request: Request): Principal | undefined {
  return (request as WithPrincipal)[PRINCIPAL];
}

/**
 * The caller the guard attached, or 401. AUTH_MODE=none attaches the anonymous operator itself, so
 * a request without one was never authenticated (a public route, or a route the guard did not
 * cover): it is refused, never taken for the operator.
 */
export function requirePrincipal(request: Request): Principal {
  const principal = principalOf(request);
  if (principal === undefined) {
    throw AuthError.unauthenticated('Authentication required: send Authorization: Bearer <API key or token>');
  }
  return principal;
}

/** `@CurrentPrincipal()`: the caller the guard authenticated (the anonymous operator in AUTH_MODE=none); see requirePrincipal. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return requirePrincipal(ctx.switchToHttp().getRequest<Request>());
});
