/**
 * Every error answer has the body `{"message": "..."}` (reference README §6). This is the one place
 * that decides its status: our own ApiError, core's CoreError through CORE_ERROR_STATUS, fastify's
 * own client errors (body too large, bad URL) by their status, and anything else is a bug: 500.
 */
import { CoreError, type Logger } from '@switchboard/core';
import type { FastifyError, FastifyInstance } from 'fastify';
import { type Dialect, SPEC_DIALECT } from '../dialect/dialect.js';
import { requestDialect } from '../dialect/request-dialect.js';
import { ApiError } from './api-error.js';
import { CORE_ERROR_STATUS } from './error-status.js';
import { type PathTable, trailingSlashNotFound } from './routes.js';

export interface HttpErrorAnswer {
  readonly status: number;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function toHttpError(error: unknown, dialect: Dialect = SPEC_DIALECT): HttpErrorAnswer {
  if (error instanceof ApiError) return { status: error.status, message: error.message, headers: error.headers };
  if (error instanceof CoreError) {
    return { status: dialect.status(error.code, CORE_ERROR_STATUS[error.code]), message: error.message, headers: {} };
  }
  const status = (error as Partial<FastifyError> | undefined)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: (error as Error).message, headers: {} };
  }
  return { status: 500, message: 'Internal server error', headers: {} };
}

export function installErrorHandlers(app: FastifyInstance, log: Logger, paths: PathTable): void {
  app.setErrorHandler((error, request, reply) => {
    const answer = toHttpError(error, requestDialect(request));
    if (answer.status >= 500) {
      log.error({ err: error, method: request.method, route: request.routeOptions.url }, 'request failed');
    }
    // A dialect may answer an error of SPEC.md's as a success (renames.ts errorStatuses).
    if (answer.status < 300) reply.code(answer.status).headers(answer.headers).send();
    else reply.code(answer.status).headers(answer.headers).send({ message: answer.message });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const trailingSlash = path.length > 1 && path.endsWith('/') && paths.has(path.slice(0, -1));
    reply.code(404).send({ message: trailingSlash ? trailingSlashNotFound().message : 'Resource not found' });
  });
}
