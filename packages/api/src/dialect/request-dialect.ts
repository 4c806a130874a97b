/**
 * The dialect a request is served in: the authenticated user's, set by the authentication hook.
 * A request refused before authentication is answered in SPEC.md's names.
 */
import type { FastifyRequest } from 'fastify';
import { type Dialect, SPEC_DIALECT } from './dialect.js';

const dialects = new WeakMap<object, Dialect>();

export function setRequestDialect(request: FastifyRequest, dialect: Dialect): void {
  dialects.set(request.raw, dialect);
}

export function requestDialect(request: FastifyRequest): Dialect {
  return dialects.get(request.raw) ?? SPEC_DIALECT;
}
