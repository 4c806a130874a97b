/**
 * The dialect a request is served in: the authenticated user's, set by the authentication hook.
 * A request refused before authentication is answered in SPEC.md's names.
 *
 * Kept on the raw request under a symbol rather than in a WeakMap: a WeakMap entry per request is an
 * ephemeron the garbage collector must trace, a measurable share of an idle request's CPU.
 */
import type { FastifyRequest } from 'fastify';
import { type Dialect, SPEC_DIALECT } from './dialect.js';

const DIALECT = Symbol('switchboard.dialect');

interface DialectCarrier {
  [DIALECT]?: Dialect;
}

export function setRequestDialect(request: FastifyRequest, dialect: Dialect): void {
  (request.raw as DialectCarrier)[DIALECT] = dialect;
}

export function requestDialect(request: FastifyRequest): Dialect {
  return (request.raw as DialectCarrier)[DIALECT] ?? SPEC_DIALECT;
}
