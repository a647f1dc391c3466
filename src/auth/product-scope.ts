import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { FetCode } from '../engine/errors/fet-code.js';
import { RequestValidationError } from '../common/errors/request-errors.js';
import { parseProductName } from '../common/http/product-name.decorator.js';
import { requirePrincipal } from './access.decorators.js';
import { AuthError } from './auth.error.js';
import { actsFor, type Principal } from './principal.js';

/** The products a request may see: every product (an operator without X-Product-Name), or these. */
export interface ProductScope {
  readonly products: readonly string[] | 'all';
  /** X-Product-Name named the product: only its own connections, no internal datasources. */
  readonly named: boolean;
}

/**
 * The product a request acts for when it creates something. An operator names it in
 * X-Product-Name; a product principal may omit the header when it has one product, and may never
 * name another one.
 */
export function actingProduct(principal: Principal, header: string | undefined): string {
  const named = parseProductName(header, false);
  if (named !== undefined) return assertActsFor(principal, named);
  if (!principal.operator && principal.products.length === 1) return principal.products[0];
  if (!principal.operator && principal.products.length === 0) throw AuthError.forbidden('This credential acts for no product');
  const reason = principal.operator ? '' : `: this credential acts for several products (${principal.products.join(', ')})`;
  throw new RequestValidationError(FetCode.InvalidHeader, `X-Product-Name header is required and must not be empty${reason}`);
}

/** The products a list may show: the one named in X-Product-Name, else every product of the principal. */
export function productScope(principal: Principal, header: string | undefined): ProductScope {
  const named = parseProductName(header, false);
  if (named !== undefined) return { products: [assertActsFor(principal, named)], named: true };
  return { products: principal.operator ? 'all' : principal.products, named: false };
}

function assertActsFor(principal: Principal, product: string): string {
  if (!actsFor(principal, product)) throw AuthError.forbidden(`This credential does not act for product '${product}'`);
  return product;
}

function productHeader(ctx: ExecutionContext): { principal: Principal; header: string | undefined } {
  const request = ctx.switchToHttp().getRequest<Request>();
  const raw = request.headers['x-product-name'];
  return { principal: requirePrincipal(request), header: Array.isArray(raw) ? raw[0] : raw };
}

/** `@ActingProduct()`: see actingProduct. */
export const ActingProduct = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const { principal, header } = productHeader(ctx);
  return actingProduct(principal, header);
});

/** `@ListScope()`: see productScope. */
export const ListScope = createParamDecorator((_: unknown, ctx: ExecutionContext): ProductScope => {
  const { principal, header } = productHeader(ctx);
  return productScope(principal, header);
});
