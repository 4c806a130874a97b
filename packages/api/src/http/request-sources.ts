/** Collects the parameter sources of a request for params.ts. */
import type { FastifyRequest } from 'fastify';
import type { JsonObject } from '../swagger/types.js';
import { FormBody, JsonBody } from './body.js';
import type { RequestSources } from './params.js';
import { isPlainObject } from './variables.js';

export function requestSources(request: FastifyRequest): RequestSources {
  const query = { ...(request.query as Record<string, string>) };
  const body = request.body;
  if (body instanceof FormBody) Object.assign(query, body.fields);
  const json: JsonObject | undefined = body instanceof JsonBody && isPlainObject(body.value) ? body.value : undefined;
  return { path: request.params as Record<string, string>, query, json };
}
