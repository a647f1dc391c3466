import { SetMetadata, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ANONYMOUS_OPERATOR, type Principal } from './principal.js';

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

/** `@CurrentPrincipal()`: the caller the guard authenticated (the anonymous operator in AUTH_MODE=none). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  return principalOf(ctx.switchToHttp().getRequest<Request>()) ?? ANONYMOUS_OPERATOR;
});
