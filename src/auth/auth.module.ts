import { Global, Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { AppConfig } from '../config/app-config.js';
import { runsManager } from '../config/fetcher-role.js';
import { ApiKeyAuthenticator } from './api-key/api-key.authenticator.js';
import { ApiKeyController } from './api-key/api-key.controller.js';
import { ApiKeyRepository } from './api-key/api-key.repository.js';
import { ApiKeyService } from './api-key/api-key.service.js';
import { AuthFailureService } from './auth-failure.service.js';
import { AuthGuard } from './auth.guard.js';
import { AUTHENTICATOR, type Authenticator } from './authenticator.port.js';
import { AuthError } from './auth.error.js';
import { JwtVerifier } from './jwt/jwt-verifier.js';
import { UnauthenticatedNetworkWarning } from './unauthenticated-network.warning.js';
import { Clock } from '../common/clock/clock.js';

/** AUTH_MODE=none: there is nothing to check; the guard never asks. */
const NO_AUTHENTICATOR: Authenticator = {
  authenticate: () => Promise.reject(AuthError.unauthenticated('authentication is disabled (AUTH_MODE=none)')),
};

/**
 * Authentication for every role: the global guard and the authenticator of AUTH_MODE. Key
 * management is an API of the manager, and exists only where API keys are the credential.
 */
@Global()
@Module({})
export class AuthModule {
  static forRoot(config: AppConfig): DynamicModule {
    const providers: Provider[] = [ApiKeyRepository, AuthFailureService, { provide: APP_GUARD, useClass: AuthGuard }];
    const controllers: Type[] = [];
    const { auth } = config;
    if (auth.mode === 'apikey') {
      providers.push({
        provide: AUTHENTICATOR,
        inject: [ApiKeyRepository],
        useFactory: (keys: ApiKeyRepository) => new ApiKeyAuthenticator(auth.adminKeys, keys),
      });
      if (runsManager(config.role)) {
        providers.push(ApiKeyService);
        controllers.push(ApiKeyController);
      }
    } else if (auth.mode === 'jwt') {
      providers.push({
        provide: AUTHENTICATOR,
        inject: [Clock],
        useFactory: (clock: Clock): Authenticator => {
          const verifier = new JwtVerifier(auth.jwt, { now: () => clock.now() });
          return { authenticate: (token: string) => verifier.verify(token) };
        },
      });
    } else {
      providers.push({ provide: AUTHENTICATOR, useValue: NO_AUTHENTICATOR });
      if (config.http.unauthenticatedNetwork) providers.push(UnauthenticatedNetworkWarning);
    }
    return { module: AuthModule, providers, controllers, exports: [AUTHENTICATOR] };
  }
}
