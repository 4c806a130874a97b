/**
 * The runtime of the typed client: REST calls built from the generated operation table (so every
 * method and its parameters are typed by src/generated/ari.ts), and an events connection that
 * hands out typed events, remembers the last sequence number of each application and, after a
 * dropped connection, reconnects with `?resume=` so nothing is lost.
 */
import WebSocket from 'ws';
import { type AriApi, type AriEvent, type AriEventType, OPERATIONS } from './generated/ari.js';

export interface ClientOptions {
  /** `http://host:port` (the API is under `/ari`, or `<prefix>/ari`). */
  readonly baseUrl: string;
  readonly username: string;
  readonly password: string;
  readonly prefix?: string;
}

/** An error answer of the API: its status and `message`. */
export class AriError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AriError';
  }
}

type Operation = (typeof OPERATIONS)[number];
type Params = Record<string, unknown>;

function encodeValue(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(',') : String(value);
}

export function createApi(options: ClientOptions): AriApi {
  const root = `${options.baseUrl.replace(/\/+$/, '')}${options.prefix ?? ''}/ari`;
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const call = async (operation: Operation, params: Params = {}): Promise<unknown> => {
    let path: string = operation.path;
    for (const name of operation.path_params) {
      const value = params[name];
      if (value === undefined) throw new TypeError(`${operation.resource}.${operation.method}: ${name} is required`);
      path = path.replace(`{${name}}`, encodeURIComponent(encodeValue(value)));
    }
    const query = new URLSearchParams();
    for (const name of operation.query_params) if (params[name] !== undefined) query.set(name, encodeValue(params[name]));
    let body: string | undefined;
    if (operation.whole_body && params.body !== undefined) body = JSON.stringify(params.body);
    else if (operation.body_params.some((name) => params[name] !== undefined)) {
      body = JSON.stringify(Object.fromEntries(operation.body_params.filter((n) => params[n] !== undefined).map((n) => [n, params[n]])));
    }
    const search = query.toString();
    const response = await fetch(`${root}${path}${search === '' ? '' : `?${search}`}`, {
      method: operation.httpMethod,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
    if (!response.ok) {
      const text = await response.text();
      let message = text;
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? text;
      } catch {
        // not JSON: the text is the message
      }
      throw new AriError(response.status, message);
    }
    if (operation.binary) return await response.arrayBuffer();
    const text = await response.text();
    return text === '' ? undefined : JSON.parse(text);
  };
  const api: Record<string, Record<string, (params?: Params) => Promise<unknown>>> = {};
  for (const operation of OPERATIONS) {
    api[operation.resource] ??= {};
    (api[operation.resource] as Record<string, (params?: Params) => Promise<unknown>>)[operation.method] = (params) =>
      call(operation, params);
  }
  // Sound by construction: the table and the AriApi interface are generated from the same document.
  return api as unknown as AriApi;
}

export type EventOf<T extends AriEventType> = Extract<AriEvent, { type: T }>;

export interface EventStreamOptions {
  /** Reconnect (with resume) after a dropped connection; milliseconds between attempts. */
  readonly reconnectIntervalMs?: number;
  readonly subscribeAll?: boolean;
}

/** The events WebSocket of some applications, typed. */
export class EventStream {
  readonly #url: string;
  readonly #authorization: string;
  readonly #options: EventStreamOptions;
  readonly #handlers = new Map<string, Set<(event: AriEvent) => void>>();
  readonly #lastSequence = new Map<string, number>();
  #socket: WebSocket | undefined;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(client: ClientOptions, applications: readonly string[], options: EventStreamOptions = {}) {
    const root = `${client.baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}${client.prefix ?? ''}/ari`;
    const query = new URLSearchParams({ app: applications.join(',') });
    if (options.subscribeAll) query.set('subscribeAll', 'true');
    this.#url = `${root}/events?${query.toString()}`;
    this.#authorization = `Basic ${Buffer.from(`${client.username}:${client.password}`).toString('base64')}`;
    this.#options = options;
  }

  /** The last sequence number seen per application. */
  get lastSequence(): ReadonlyMap<string, number> {
    return this.#lastSequence;
  }

  /** Resolves once connected. */
  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const resume = [...this.#lastSequence].map(([app, sequence]) => `${app}:${sequence}`).join(',');
      const socket = new WebSocket(resume === '' ? this.#url : `${this.#url}&resume=${encodeURIComponent(resume)}`, ['ari'], {
        headers: { authorization: this.#authorization },
      });
      this.#socket = socket;
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.on('message', (data) => this.#received(JSON.parse(String(data)) as AriEvent));
      socket.on('close', () => {
        if (this.#socket !== socket || this.#closed || this.#options.reconnectIntervalMs === undefined) return;
        this.#timer = setTimeout(() => void this.open().catch(() => socket.emit('close')), this.#options.reconnectIntervalMs);
      });
    });
  }

  on<T extends AriEventType>(type: T | '*', handler: (event: EventOf<T>) => void): () => void {
    const set = this.#handlers.get(type) ?? new Set();
    set.add(handler as (event: AriEvent) => void);
    this.#handlers.set(type, set);
    return () => set.delete(handler as (event: AriEvent) => void);
  }

  /** The next event of `type` that matches (already received ones do not count). */
  next<T extends AriEventType>(type: T, match: (event: EventOf<T>) => boolean = () => true, timeoutMs = 10_000): Promise<EventOf<T>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no ${type} event within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on(type, (event) => {
        if (!match(event)) return;
        clearTimeout(timer);
        off();
        resolve(event);
      });
    });
  }

  /** Drops the connection without closing the stream (it reconnects and resumes). */
  interrupt(): void {
    this.#socket?.terminate();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket?.close();
  }

  #received(event: AriEvent): void {
    const sequence = (event as { sequence?: number }).sequence;
    if (sequence !== undefined && 'application' in event) this.#lastSequence.set(event.application, sequence);
    for (const key of [event.type, '*']) for (const handler of this.#handlers.get(key) ?? []) handler(event);
  }
}
