import { Injectable, Logger, type CanActivate, type ExecutionContext, Inject } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Access, ACCESS_METADATA, attachPrincipal } from './access.decorators.js';
import { AuthError } from './auth.error.js';
import { AuthFailureService } from './auth-failure.service.js';
import { AUTHENTICATOR, type Authenticator } from './authenticator.port.js';
import { clientKeyOf } from './client-address.js';
import { ANONYMOUS_OPERATOR, type Principal } from './principal.js';

/** Longer than any key or token we issue or accept; refused before any parsing or lookup. */
const MAX_CREDENTIAL_LENGTH = 16_384;

/**
 * The global guard: every route declares its Access; the caller's credential becomes the
 * principal on the request. A route without a declaration is refused (500 is a bug we want to
 * see in tests, not an open door in production). A refused credential is a failed authentication
 * of the client's address; an address with too many is answered 429 before its credential is
 * looked at (AuthFailureService).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('Auth');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AUTHENTICATOR) private readonly authenticator: Authenticator,
    private readonly failures: AuthFailureService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_METADATA, [context.getHandler(), context.getClass()]);
    if (access === undefined) throw new Error(`route ${context.getClass().name}.${context.getHandler().name} declares no Access`);
    const request = context.switchToHttp().getRequest<Request>();

    if (this.config.auth.mode === 'none') {
      attachPrincipal(request, ANONYMOUS_OPERATOR);
      return true;
    }
    const sent = request.headers.authorization !== undefined && request.headers.authorization !== '';
    const client = clientKeyOf(request.ip);
    if (access === Access.Public) {
      // A public route still shows more to an operator (readiness details), so a credential is
      // looked at, unless the address is blocked; a bad one is simply not used.
      if (!sent || this.failures.isBlocked(client)) return true;
      const principal = await this.authenticate(request, client).catch(() => undefined);
      if (principal) attachPrincipal(request, principal);
      return true;
    }
    if (!sent) throw AuthError.unauthenticated('Authentication required: send Authorization: Bearer <API key or token>');
    const refusal = this.failures.refusal(client);
    if (refusal) throw refusal;
    const principal = await this.authenticate(request, client);
    attachPrincipal(request, principal);
    if (access === Access.Operator && !principal.operator) {
      this.logger.warn(`principal ${principal.id} refused on operator route ${request.method} ${request.route?.path ?? request.path}`);
      throw AuthError.forbidden('This route is for operators only');
    }
    return true;
  }

  /** The caller's principal; a refused credential is recorded, and answered 429 once it used up the address's limit. */
  private async authenticate(request: Request, client: string): Promise<Principal> {
    try {
      return await this.authenticator.authenticate(bearerCredential(request));
    } catch (error) {
      if (error instanceof AuthError && error.reason !== undefined && error.reason !== 'missing') {
        const route = `${request.method} ${request.route?.path ?? 'unmatched'}`;
        const limited = await this.failures.failed({ client, reason: error.reason, route });
        if (limited) throw limited;
      }
      throw error;
    }
  }
}

/** The credential of `Authorization: Bearer <credential>`; a header in another shape counts as invalid. */
function bearerCredential(request: Request): string {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  if (!match || match[1].length > MAX_CREDENTIAL_LENGTH) {
    throw AuthError.unauthenticated('Authorization header must be "Bearer <API key or token>"', true, 'malformed');
  }
  return match[1];
}
