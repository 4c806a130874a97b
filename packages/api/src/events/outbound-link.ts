/**
 * One outbound WebSocket (ari.conf `type = outbound_websocket`): a connection Switchboard opens to
 * an application. Once open it is an ordinary events connection — numbered events, REST over
 * WebSocket (as `local_ari_user`), ApplicationRegistered when it starts serving its apps and
 * ApplicationUnregistered before a deliberate close.
 *
 * persistent: connected at start, reconnected every `reconnect_interval` for as long as it is
 * configured; a reconnect resumes after the last event whose write completed, so what happened in
 * between is replayed from the journal.
 *
 * per-call (made from a `per_call_config` connection for one channel, see outbound-connections.ts):
 * connected when the channel enters the application (the call waits, up to `reconnect_attempts`
 * retries), closed when it leaves; a drop while the call is in it reconnects the same way.
 *
 *   idle --connect--> connecting --open--> open --release--> idle
 *            ^            |                  |
 *            |            +--attempts out----+--> (per-call: the call fails)
 *            +------------dropped------------+
 *   any --shutdown--> closed
 */
import { readFileSync } from 'node:fs';
import type { Logger, OutboundWebsocketConfig, SwitchboardCore } from '@switchboard/core';
import WebSocket from 'ws';
import { dialectOf } from '../dialect/dialect.js';
import type { Credentials } from '../http/auth.js';
import type { UpgradeContext } from '../http/operation.js';
import { registrationNotice } from './connection-notices.js';
import { EventConnection } from './event-connection.js';

type LinkState = 'idle' | 'connecting' | 'open' | 'closed';

export class OutboundLink {
  config: OutboundWebsocketConfig;
  readonly #core: SwitchboardCore;
  readonly #log: Logger;
  readonly #upgrade: () => Omit<UpgradeContext, 'credentials'>;
  state: LinkState = 'idle';
  #socket: WebSocket | undefined;
  #session: EventConnection | undefined;
  #connecting: Promise<boolean> | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #resumeFrom: ReadonlyMap<string, number> | undefined;
  /** Per-call links: whether their call is still in the application (a drop then reconnects). */
  callPresent = true;

  constructor(config: OutboundWebsocketConfig, core: SwitchboardCore, log: Logger, upgrade: () => Omit<UpgradeContext, 'credentials'>) {
    this.config = config;
    this.#core = core;
    this.#log = log.child({ connection: config.name });
    this.#upgrade = upgrade;
  }

  get perCall(): boolean {
    return this.config.connectionType === 'per_call_config';
  }

  /** Connects unless connected; for per-call links, retries up to reconnect_attempts. Resolves whether it is open. */
  ensureOpen(): Promise<boolean> {
    if (this.state === 'open') return Promise.resolve(true);
    if (this.state === 'closed') return Promise.resolve(false);
    this.#connecting ??= this.#connectWithRetries().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Persistent links: connect, and keep reconnecting whatever happens. */
  startPersistent(): void {
    void this.#attempt().then((open) => {
      if (!open) this.#scheduleReconnect();
    });
  }

  /** Deliberate close: ApplicationUnregistered for each app, then the socket closes; a per-call link can open again. */
  release(): void {
    if (this.state !== 'open') return;
    this.state = 'idle';
    const session = this.#session;
    const socket = this.#socket;
    this.#session = undefined;
    this.#socket = undefined;
    for (const app of this.config.apps) session?.notice(app, registrationNotice('ApplicationUnregistered', app, this.#systemId()));
    socket?.close(1000);
  }

  /** Where the stream stopped: a replacement link for the same apps resumes after it. */
  lastWritten(): ReadonlyMap<string, number> | undefined {
    return this.#session ? new Map(this.#session.lastWrittenSequences()) : this.#resumeFrom;
  }

  /** Persistent links: the first connection resumes after these sequence numbers. */
  resumeAfter(sequences: ReadonlyMap<string, number> | undefined): void {
    this.#resumeFrom = sequences;
  }

  /** For good: `unregister` (a removed connection) unregisters its apps instead of parking them for a successor. */
  shutdown(options: { unregister?: boolean } = {}): void {
    if (options.unregister) this.#session?.unregisterOnClose();
    this.release();
    this.state = 'closed';
    if (this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    this.#socket?.terminate();
  }

  async #connectWithRetries(): Promise<boolean> {
    const attempts = this.config.reconnectAttempts + 1;
    for (let attempt = 1; attempt <= attempts && this.state !== 'closed'; attempt += 1) {
      if (await this.#attempt()) return true;
      if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, this.config.reconnectIntervalMs));
    }
    this.#log.warn({ attempts }, 'outbound WebSocket could not connect');
    return false;
  }

  /** One connection attempt within connection_timeout. */
  #attempt(): Promise<boolean> {
    if (this.state === 'closed') return Promise.resolve(false);
    this.state = 'connecting';
    const config = this.config;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (open: boolean) => {
        if (settled) return;
        settled = true;
        if (!open && this.state === 'connecting') this.state = 'idle';
        resolve(open);
      };
      let socket: WebSocket;
      try {
        socket = new WebSocket(config.uri, config.protocols, this.#socketOptions());
      } catch (err) {
        this.#log.warn({ err: (err as Error).message }, 'outbound WebSocket cannot be opened');
        settle(false);
        return;
      }
      const timer = setTimeout(() => {
        socket.terminate();
        settle(false);
      }, config.connectionTimeoutMs);
      socket.once('open', () => {
        clearTimeout(timer);
        if (this.state === 'closed') {
          socket.close(1000);
          settle(false);
          return;
        }
        this.#opened(socket);
        settle(true);
      });
      socket.on('error', (err) => {
        clearTimeout(timer);
        this.#log.debug({ err: err.message }, 'outbound WebSocket error');
        settle(false);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        settle(false);
        if (this.#socket === socket) this.#dropped();
      });
    });
  }

  #opened(socket: WebSocket): void {
    const config = this.config;
    const session = new EventConnection({
      core: this.#core,
      applications: config.apps,
      subscribeAll: config.subscribeAll,
      log: this.#log,
      // Events in the naming of the user the connection's requests run as (REST answers are too).
      dialect: dialectOf(this.#localUser()?.dialect ?? this.#core.config.ari.dialect),
      // A drop parks the apps so the reconnect loses nothing (a per-call app keeps its call's
      // subscriptions too); a deliberate close of a per-call or removed link unregisters them (shutdown).
      ...(this.#resumeFrom !== undefined ? { resume: this.#resumeFrom } : {}),
    });
    session.attach(socket, { ...this.#upgrade(), credentials: this.#credentials() });
    this.#socket = socket;
    this.#session = session;
    this.state = 'open';
    for (const app of config.apps) session.notice(app, registrationNotice('ApplicationRegistered', app, this.#systemId()));
    this.#log.info({ uri: config.uri, apps: config.apps }, 'outbound WebSocket connected');
  }

  /** The socket closed without us asking. */
  #dropped(): void {
    const session = this.#session;
    this.#resumeFrom = session ? new Map(session.lastWrittenSequences()) : this.#resumeFrom;
    this.#socket = undefined;
    this.#session = undefined;
    if (this.state === 'closed') return;
    this.state = 'idle';
    this.#log.info({ uri: this.config.uri }, 'outbound WebSocket dropped');
    if (!this.perCall) this.#scheduleReconnect();
    else if (this.callPresent) void this.ensureOpen();
  }

  #scheduleReconnect(): void {
    if (this.state === 'closed' || this.#reconnectTimer) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      if (this.state === 'idle') this.startPersistent();
    }, this.config.reconnectIntervalMs);
    this.#reconnectTimer.unref();
  }

  #socketOptions(): WebSocket.ClientOptions {
    const config = this.config;
    const headers: Record<string, string> = {};
    if (config.username !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${config.username}:${config.password ?? ''}`).toString('base64')}`;
    }
    const options: WebSocket.ClientOptions = { headers, handshakeTimeout: config.connectionTimeoutMs };
    if (config.tlsEnabled) {
      if (config.caListFile !== undefined) options.ca = readFileSync(config.caListFile);
      options.rejectUnauthorized = config.verifyServerCert;
      // tls treats any returned value as the verification error; ws's typing says boolean, Node's contract is undefined for success.
      if (!config.verifyServerHostname)
        options.checkServerIdentity = (() => undefined) as unknown as WebSocket.ClientOptions['checkServerIdentity'];
    }
    return options;
  }

  #localUser() {
    return this.#core.config.ari.users.find((u) => u.name === this.config.localAriUser);
  }

  #credentials(): Credentials | undefined {
    const user = this.#localUser();
    return user ? { user: user.name, password: user.password } : undefined;
  }

  #systemId(): string {
    return this.#core.config.general.entityId;
  }
}
