/**
 * Request bodies (reference README §5): JSON objects are read as parameters, form fields are
 * merged with the query string, anything else is read (so the size limit holds) and ignored.
 * Bodies above MAX_BODY_BYTES are refused with 413.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';

export const MAX_BODY_BYTES = 40960;

export class JsonBody {
  constructor(readonly value: unknown) {}
}

export class FormBody {
  constructor(readonly fields: Readonly<Record<string, string>>) {}
}

/** One value per name; a repeated name keeps the last value, as in the reference. */
export function lastValues(search: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(search)) values[name] = value;
  return values;
}

export function installBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    // Some clients (ari-client on DELETE) announce JSON and send nothing: that is no body.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, new JsonBody(JSON.parse(text)));
    } catch {
      done(new ApiError(400, 'Error parsing request body'), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new FormBody(lastValues(String(body))));
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
}
