import { Inject, Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Access, ACCESS_METADATA, attachPrincipal } from './access.decorators.js';
import { AuthError } from './auth.error.js';
import { AUTHENTICATOR, type Authenticator } from './authenticator.port.js';
import { ANONYMOUS_OPERATOR } from './principal.js';

/** Longer than any key or token we issue or accept; refused before any parsing or lookup. */
const MAX_CREDENTIAL_LENGTH = 16_384;

/**
 * The global guard: every route declares its Access; the caller's credential becomes the
 * principal on the request. A route without a declaration is refused (500 is a bug we want to
 * see in tests, not an open door in production).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger('Auth');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AUTHENTICATOR) private readonly authenticator: Authenticator,
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
    if (access === Access.Public) {
      // A public route still shows more to an operator (readiness details), so a credential is
      // looked at; a bad one is simply not used.
      const principal = await Promise.resolve()
        .then(() => bearerCredential(request))
        .then((credential) => (credential === undefined ? undefined : this.authenticator.authenticate(credential)))
        .catch(() => undefined);
      if (principal) attachPrincipal(request, principal);
      return true;
    }
    const credential = bearerCredential(request);
    if (credential === undefined) {
      throw AuthError.unauthenticated('Authentication required: send Authorization: Bearer <API key or token>');
    }
    const principal = await this.authenticator.authenticate(credential);
    attachPrincipal(request, principal);
    if (access === Access.Operator && !principal.operator) {
      this.logger.warn(`principal ${principal.id} refused on operator route ${request.method} ${request.route?.path ?? request.path}`);
      throw AuthError.forbidden('This route is for operators only');
    }
    return true;
  }
}

/** The credential of `Authorization: Bearer <credential>`; a header in another shape counts as invalid. */
function bearerCredential(request: Request): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined || header === '') return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match || match[1].length > MAX_CREDENTIAL_LENGTH) {
    throw AuthError.unauthenticated('Authorization header must be "Bearer <API key or token>"', true);
  }
  return match[1];
}
