/**
 * REST over the events WebSocket (reference README §7, "client → server"): a `RESTRequest` text
 * frame is run through the same fastify routes as an HTTP request — same authentication (the
 * credentials the connection was opened with, checked again per request so a reload of ari.conf
 * takes effect), same parameter validation, same handlers, same error bodies — and answered with
 * a `RESTResponse` event on the same connection.
 */
import { STATUS_CODES } from 'node:http';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Credentials } from '../http/auth.js';
import type { RestAnswer } from './connection-notices.js';

/** fastify's inject, bound to the server whose routes answer HTTP. */
export type RestInject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

/** Requests one connection may have in progress at once; more are answered 503. */
export const MAX_REQUESTS_IN_PROGRESS = 64;

const BODY_TYPES = new Set(['application/json', 'application/x-www-form-urlencoded']);
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS']);

export interface RestOverWebSocketOptions {
  readonly inject: RestInject;
  /** `<prefix>/ari` */
  readonly apiRoot: string;
  /** Who the requests run as; undefined answers every request 401 like an HTTP request without credentials. */
  readonly credentials: Credentials | undefined;
  readonly answer: (answer: RestAnswer) => void;
}

class RequestRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface ParsedRequest {
  readonly transactionId: string;
  readonly requestId: string;
  readonly method: string;
  /** As sent, without its query string: echoed in the answer. */
  readonly uri: string;
  readonly url: string;
  readonly contentType?: string;
  readonly body?: string;
}

export class RestOverWebSocket {
  readonly #options: RestOverWebSocketOptions;
  #inProgress = 0;

  constructor(options: RestOverWebSocketOptions) {
    this.#options = options;
  }

  /** Handles one text frame; the answer is always given, never thrown. */
  handle(text: string): void {
    let ids = { transactionId: '', requestId: '', uri: '' };
    try {
      const frame = parseFrame(text);
      ids = { transactionId: stringField(frame, 'transaction_id'), requestId: stringField(frame, 'request_id'), uri: '' };
      const request = this.#parseRequest(frame, ids);
      ids.uri = request.uri;
      if (this.#inProgress >= MAX_REQUESTS_IN_PROGRESS) throw new RequestRefused(503, 'Too many requests in progress on this connection');
      this.#inProgress += 1;
      void this.#run(request)
        .catch(() => this.#refuse(request, 500, 'Internal server error'))
        .finally(() => {
          this.#inProgress -= 1;
        });
    } catch (err) {
      // Never thrown back into the socket's message handler: every frame gets an answer.
      if (err instanceof RequestRefused) this.#refuse(ids, err.status, err.message);
      else this.#refuse(ids, 500, 'Internal server error');
    }
  }

  #parseRequest(frame: Record<string, unknown>, ids: { transactionId: string; requestId: string }): ParsedRequest {
    if (frame.type !== 'RESTRequest') throw new RequestRefused(400, 'type must be RESTRequest');
    const method = frame.method;
    const uriField = frame.uri;
    if (typeof method !== 'string' || method === '') throw new RequestRefused(400, 'method is required');
    if (typeof uriField !== 'string' || uriField === '') throw new RequestRefused(400, 'uri is required');
    if (!METHODS.has(method.toUpperCase())) throw new RequestRefused(405, 'Invalid method');
    if (uriField.startsWith('/')) throw new RequestRefused(400, 'uri is relative to /ari and has no leading slash');
    const [uri = '', query = ''] = splitOnce(uriField, '?');
    const params = new URLSearchParams(query);
    const extra = frame.query_strings;
    if (extra !== undefined) {
      if (!Array.isArray(extra)) throw new RequestRefused(400, 'query_strings must be a list of {name, value}');
      for (const item of extra) {
        if (!isRecord(item) || typeof item.name !== 'string' || typeof item.value !== 'string') {
          throw new RequestRefused(400, 'query_strings must be a list of {name, value}');
        }
        params.append(item.name, item.value);
      }
    }
    const body = frame.message_body;
    const contentType = frame.content_type;
    if (body !== undefined && typeof body !== 'string') throw new RequestRefused(400, 'message_body must be a string');
    if (contentType !== undefined && typeof contentType !== 'string') throw new RequestRefused(400, 'content_type must be a string');
    if (body !== undefined && body !== '' && contentType === undefined) throw new RequestRefused(400, 'message_body requires content_type');
    if (contentType !== undefined && !BODY_TYPES.has(contentType.split(';')[0]?.trim().toLowerCase() ?? '')) {
      throw new RequestRefused(400, `Unsupported content_type ${contentType}; use application/json or application/x-www-form-urlencoded`);
    }
    const search = params.toString();
    return {
      ...ids,
      method: method.toUpperCase(),
      uri,
      url: `${this.#options.apiRoot}/${uri}${search === '' ? '' : `?${search}`}`,
      ...(contentType !== undefined ? { contentType } : {}),
      ...(body !== undefined && body !== '' ? { body } : {}),
    };
  }

  async #run(request: ParsedRequest): Promise<void> {
    const headers: Record<string, string> = {};
    const credentials = this.#options.credentials;
    if (credentials) {
      headers.authorization = `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
    }
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    let response: LightMyRequestResponse;
    try {
      response = await this.#options.inject({
        method: request.method as InjectOptions['method'],
        url: request.url,
        headers,
        ...(request.body !== undefined ? { payload: request.body } : {}),
      });
    } catch {
      this.#refuse(request, 500, 'Internal server error');
      return;
    }
    const status = response.statusCode;
    // The events route answers a plain GET with 426; over this transport no socket can be opened.
    if (status === 426) {
      this.#refuse(request, 400, 'WebSocket connections cannot be opened over REST over WebSocket');
      return;
    }
    const type = String(response.headers['content-type'] ?? '');
    const body = response.body;
    if (body !== '' && !type.startsWith('application/json')) {
      this.#refuse(request, 406, 'Binary content (stored files) is not available over REST over WebSocket; use HTTP');
      return;
    }
    this.#options.answer({
      transactionId: request.transactionId,
      requestId: request.requestId,
      status,
      reason: STATUS_CODES[status] ?? '',
      uri: request.uri,
      ...(body !== '' ? { body } : {}),
    });
  }

  #refuse(ids: { transactionId: string; requestId: string; uri: string }, status: number, message: string): void {
    this.#options.answer({ ...ids, status, reason: STATUS_CODES[status] ?? '', body: JSON.stringify({ message }) });
  }
}

function parseFrame(text: string): Record<string, unknown> {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    throw new RequestRefused(400, 'Failed to parse request message JSON');
  }
  if (!isRecord(frame)) throw new RequestRefused(400, 'Failed to parse request message JSON');
  return frame;
}

function stringField(frame: Record<string, unknown>, name: string): string {
  const value = frame[name];
  return typeof value === 'string' ? value : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}
