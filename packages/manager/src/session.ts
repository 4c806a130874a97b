/**
 * One manager connection: it reads actions, runs them one at a time in arrival order (so replies
 * come back in the order asked, as clients of the original expect), and writes replies and events.
 *
 *   connected ──Login ok──► authenticated ──Logoff / close / limit──► closed
 *       └──────────── failed Login / auth timeout / limit ──────────────┘
 *
 * Protection against a client that misbehaves:
 * - a line or message over the framing limits: an error reply, then the connection is closed;
 * - more actions per second than `actionlimit`: each extra one is answered with an error at once;
 * - more than MAX_QUEUED_ACTIONS waiting: the same;
 * - a client that does not read: a write that makes no progress for the user's `writetimeout`
 *   milliseconds, or more than MAX_BUFFERED_BYTES waiting to be sent, drops the connection.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { ManagerUser } from './config.js';
import type { ManagerEvent } from './fields.js';
import { EventFilters } from './filters.js';
import { Permissions } from './permissions.js';
import { type DecodeProblem, formatMessage, type ManagerMessage, MessageDecoder } from './wire.js';

export const MAX_QUEUED_ACTIONS = 64;
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How long a closing session's last output may take to leave before the socket is destroyed. */
export const FLUSH_GRACE_MS = 1000;

export type SessionState = 'connected' | 'authenticated' | 'closed';

const TRANSITIONS: Record<SessionState, readonly SessionState[]> = {
  connected: ['authenticated', 'closed'],
  authenticated: ['closed'],
  closed: [],
};

export interface SessionOptions {
  /** Runs one action: the text to write (reply and any list events), and whether to close after it. */
  handle(session: ManagerSession, message: ManagerMessage): Promise<{ text: string; close?: string }>;
  actionsPerSecond: number;
  /** Used until a user logs in (then the user's `writetimeout`). */
  writeTimeoutMs: number;
  onClose(session: ManagerSession, reason: string): void;
  /** Told of each action accepted for running (metrics). */
  onAction?(name: string): void;
}

export class ManagerSession {
  readonly id = randomUUID();
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localAddress: string;
  readonly localPort: number;
  readonly tls: boolean;
  readonly connectedAt = Date.now();
  user: ManagerUser | undefined;
  /** Read classes whose events this session receives now (Events action). */
  eventMask: Permissions = Permissions.none;
  filters = new EventFilters();
  /** The last Challenge sent, for an MD5 Login. */
  challenge: string | undefined;
  closeReason: string | undefined;

  readonly #socket: Socket;
  readonly #options: SessionOptions;
  readonly #decoder = new MessageDecoder();
  readonly #queue: ManagerMessage[] = [];
  #state: SessionState = 'connected';
  #running = false;
  #tokens: number;
  #refilledAt = Date.now();
  #writeTimer: NodeJS.Timeout | undefined;

  constructor(socket: Socket, options: SessionOptions & { tls: boolean }) {
    this.#socket = socket;
    this.#options = options;
    this.tls = options.tls;
    this.remoteAddress = socket.remoteAddress ?? '';
    this.remotePort = socket.remotePort ?? 0;
    this.localAddress = socket.localAddress ?? '';
    this.localPort = socket.localPort ?? 0;
    this.#tokens = options.actionsPerSecond;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#received(chunk));
    socket.on('error', () => this.close('socket error'));
    socket.on('close', () => this.close('connection closed'));
  }

  get state(): SessionState {
    return this.#state;
  }

  get authenticated(): boolean {
    return this.#state === 'authenticated';
  }

  #transition(next: SessionState): boolean {
    if (!TRANSITIONS[this.#state].includes(next)) return false;
    this.#state = next;
    return true;
  }

  /** After a successful Login: events of the user's read classes unless `eventsOn` is false. */
  login(user: ManagerUser, eventMask: Permissions): void {
    if (!this.#transition('authenticated')) return;
    this.user = user;
    this.eventMask = eventMask;
    this.filters = new EventFilters(user.eventFilters);
  }

  /** Writes text; false when the connection is gone. */
  write(text: string): boolean {
    if (this.#state === 'closed' || this.#socket.destroyed) return false;
    const flushed = this.#socket.write(text);
    if (this.#socket.writableLength > MAX_BUFFERED_BYTES) {
      this.close('too much output waiting for a client that does not read');
      return false;
    }
    if (!flushed) this.#watchProgress();
    return true;
  }

  /** Delivers an event if this session may read it, wants it and its filters let it through. */
  deliver(event: ManagerEvent, text: string): boolean {
    if (!this.authenticated || !this.eventMask.hasAny(event.classes)) return false;
    if (this.filters.size > 0 && !this.filters.passes(text)) return false;
    return this.write(text);
  }

  /** Ends the session; the socket is flushed when it can be, destroyed otherwise. */
  close(reason: string, flush = false): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.closeReason = reason;
    if (this.#writeTimer) clearTimeout(this.#writeTimer);
    this.#queue.length = 0;
    if (flush && !this.#socket.destroyed) {
      this.#socket.end();
      // A client that does not read would keep an ended socket open (and a server close waiting).
      setTimeout(() => this.#socket.destroy(), FLUSH_GRACE_MS).unref();
    } else this.#socket.destroy();
    this.#options.onClose(this, reason);
  }

  #writeTimeoutMs(): number {
    return this.user?.writeTimeoutMs ?? this.#options.writeTimeoutMs;
  }

  /** Bytes handed to the kernel (bytesWritten also counts what still waits in our buffer). */
  #flushedBytes(): number {
    return this.#socket.bytesWritten - this.#socket.writableLength;
  }

  /** A write is stuck when no byte left our buffer for a whole write timeout. */
  #watchProgress(): void {
    if (this.#writeTimer) return;
    let sent = this.#flushedBytes();
    const check = () => {
      this.#writeTimer = undefined;
      if (this.#state === 'closed' || this.#socket.writableLength === 0) return;
      if (this.#flushedBytes() === sent) {
        this.close(`write timed out after ${this.#writeTimeoutMs()} ms`);
        return;
      }
      sent = this.#flushedBytes();
      this.#writeTimer = setTimeout(check, this.#writeTimeoutMs());
    };
    this.#writeTimer = setTimeout(check, this.#writeTimeoutMs());
    this.#socket.once('drain', () => {
      if (this.#writeTimer) clearTimeout(this.#writeTimer);
      this.#writeTimer = undefined;
    });
  }

  #received(chunk: Buffer): void {
    if (this.#state === 'closed') return;
    const { messages, problem } = this.#decoder.push(chunk);
    for (const message of messages) this.#accept(message);
    if (problem) this.#violation(problem);
  }

  #violation(problem: DecodeProblem): void {
    const text = problem === 'line-too-long' ? 'Line too long' : 'Too many headers';
    this.write(
      formatMessage([
        ['Response', 'Error'],
        ['Message', text],
      ]),
    );
    this.close(`protocol violation: ${text}`, true);
  }

  #takeToken(): boolean {
    const now = Date.now();
    const rate = this.#options.actionsPerSecond;
    this.#tokens = Math.min(rate, this.#tokens + ((now - this.#refilledAt) / 1000) * rate);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #accept(message: ManagerMessage): void {
    const actionId = message.get('ActionID');
    const refuse = (text: string) =>
      this.write(
        formatMessage([['Response', 'Error'], ...(actionId === undefined ? [] : ([['ActionID', actionId]] as const)), ['Message', text]]),
      );
    if (!this.#takeToken()) {
      refuse('Too many actions; slow down');
      return;
    }
    if (this.#queue.length >= MAX_QUEUED_ACTIONS) {
      refuse('Too many actions waiting');
      return;
    }
    this.#queue.push(message);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (let message = this.#queue.shift(); message !== undefined; message = this.#queue.shift()) {
        if (this.#state === 'closed') return;
        this.#options.onAction?.(message.get('Action') ?? '');
        const { text, close } = await this.#options.handle(this, message);
        if (text !== '') this.write(text);
        if (close !== undefined) this.close(close, true);
      }
    } finally {
      this.#running = false;
    }
  }
}
