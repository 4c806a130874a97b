/**
 * The manager interface server: TCP (and TLS) listeners speaking the original's manager protocol,
 * fed by the same core bus the REST API reads. It owns the sessions, the connection limits, the
 * event fan-out and the counters the metrics read.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Logger, Store, SwitchboardCore, TimedDomainEvent } from '@switchboard/core';
import { callActions } from './actions/call-actions.js';
import { coreActions } from './actions/core-actions.js';
import { officeActions } from './actions/office-actions.js';
import { voicemailActions } from './actions/voicemail-actions.js';
import { originateAction } from './actions/originate.js';
import { pjsipActions } from './actions/pjsip-actions.js';
import { sessionActions } from './actions/session-actions.js';
import { stateActions } from './actions/state-actions.js';
import type { ActionDefinition, CommandRunner, ManagerServices } from './actions/types.js';
import { normalizeAddress } from './acl.js';
import { cdrEvent } from './cdr-events.js';
import { loadManagerConfig, type ManagerConfig, MANAGER_DEFAULTS } from './config.js';
import { ActionDispatcher } from './dispatcher.js';
import { EventTranslator } from './event-map.js';
import { formatEventFields, type ManagerEvent } from './fields.js';
import { extensionState, hintsWithDevice } from './hint-state.js';
import { FLUSH_GRACE_MS, ManagerSession } from './session.js';
import { formatMessage } from './wire.js';

/**
 * The greeting line. Clients of the original (npm asterisk-manager, panoramisk, asterisk-java)
 * recognise the protocol by this exact text, so it is kept as the protocol's name and version.
 */
export const MANAGER_BANNER = 'Asterisk Call Manager/5.0.0\r\n';

/** The `actions` key of every action name that is not an action of this server. */
export const UNKNOWN_ACTION = '(unknown)';

export interface ManagerServerOptions {
  core: SwitchboardCore;
  config: ManagerConfig;
  /** Where manager.conf is re-read from on Reload. */
  confDir: string;
  store?: Pick<Store, 'astdb' | 'contacts'>;
  /** Runs the `Command` action's console commands. */
  commands?: CommandRunner;
  logger: Logger;
}

export interface ManagerListeningAddress {
  protocol: 'tcp' | 'tls';
  address: string;
  port: number;
}

/** Counters for the metrics of the operations issue. */
export interface ManagerCounters {
  /** Connections accepted since start. */
  connectionsAccepted: number;
  /** Connections refused by a limit (maxsessions, maxsessionsperaddress, authlimit). */
  connectionsRejected: number;
  /** Successful logins since start. */
  loginsAccepted: number;
  /** Failed logins (unknown user, wrong secret or key, ACL) since start. */
  loginsFailed: number;
  /** Actions asked for, by action name (lower case); a name the server does not have counts as UNKNOWN_ACTION. */
  actions: Map<string, number>;
  /** Events written to sessions. */
  eventsSent: number;
  /** Sessions dropped for not reading (writetimeout or too much output waiting). */
  slowClientsDropped: number;
}

export class ManagerServer {
  readonly counters: ManagerCounters = {
    connectionsAccepted: 0,
    connectionsRejected: 0,
    loginsAccepted: 0,
    loginsFailed: 0,
    actions: new Map(),
    eventsSent: 0,
    slowClientsDropped: 0,
  };
  readonly #options: ManagerServerOptions;
  readonly #log: Logger;
  readonly #sessions = new Set<ManagerSession>();
  readonly #servers: Server[] = [];
  readonly #translator = new EventTranslator();
  readonly #dispatcher: ActionDispatcher;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #pending = new Set<Promise<void>>();
  readonly #authTimers = new Map<ManagerSession, NodeJS.Timeout>();
  #config: ManagerConfig;

  constructor(options: ManagerServerOptions) {
    this.#options = options;
    this.#config = options.config;
    this.#log = options.logger;
    const services: ManagerServices = {
      core: options.core,
      store: options.store,
      commands: options.commands,
      config: () => this.#config,
      broadcast: (event) => this.broadcast(event),
      linkedId: (channelId) => this.#translator.linkedId(channelId),
      reloadConfig: () => this.reloadConfig(),
      track: (work) => this.#track(work),
    };
    const definitions: ActionDefinition[] = [
      ...sessionActions(() => this.#dispatcher.list()),
      ...coreActions(),
      originateAction,
      ...callActions(),
      ...stateActions(),
      ...pjsipActions(),
      ...officeActions(),
      ...voicemailActions(),
    ];
    this.#dispatcher = new ActionDispatcher(definitions, services, this.#log);
  }

  get config(): ManagerConfig {
    return this.#config;
  }

  /** Sessions open now, and how many of them are logged in. */
  get sessionCount(): { total: number; authenticated: number } {
    let authenticated = 0;
    for (const s of this.#sessions) if (s.authenticated) authenticated += 1;
    return { total: this.#sessions.size, authenticated };
  }

  /** Re-reads manager.conf: users, secrets, classes and filters apply to new logins. */
  reloadConfig(): void {
    try {
      const next = loadManagerConfig(this.#options.confDir, this.#log);
      this.#config = { ...next, bindAddress: this.#config.bindAddress, port: this.#config.port, tls: this.#config.tls };
      this.#log.info({ users: next.users.size }, 'manager.conf reloaded');
    } catch (err) {
      this.#log.error({ err }, 'manager.conf reload failed; keeping the previous configuration');
    }
  }

  async listen(): Promise<ManagerListeningAddress[]> {
    const core = this.#options.core;
    this.#unsubscribe.push(core.bus.subscribe((event) => this.#onDomainEvent(event)));
    this.#unsubscribe.push(core.cdr.onRecord((record) => this.broadcast(cdrEvent(record))));
    this.#unsubscribe.push(
      core.mailboxes.onMailboxChanged((name, mailbox) =>
        this.broadcast({
          name: 'MessageWaiting',
          classes: ['call'],
          fields: [
            ['Mailbox', name],
            ['Waiting', (mailbox?.new_messages ?? 0) > 0 ? '1' : '0'],
            ['New', String(mailbox?.new_messages ?? 0)],
            ['Old', String(mailbox?.old_messages ?? 0)],
          ],
        }),
      ),
    );
    const addresses: ManagerListeningAddress[] = [];
    const config = this.#config;
    addresses.push(
      await this.#bind(
        createServer((socket) => this.#accept(socket, false)),
        'tcp',
        config.bindAddress,
        config.port,
      ),
    );
    if (config.tls) {
      const tls = createTlsServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, (socket) =>
        this.#accept(socket, true),
      );
      addresses.push(await this.#bind(tls, 'tls', config.tls.bindAddress, config.tls.port));
    }
    return addresses;
  }

  async #bind(server: Server, protocol: 'tcp' | 'tls', address: string, port: number): Promise<ManagerListeningAddress> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.#log.error({ err }, 'manager listener error'));
    this.#servers.push(server);
    const bound = server.address();
    return { protocol, address, port: typeof bound === 'object' && bound ? bound.port : port };
  }

  /** Sends an event to every session that may read it and wants it. */
  broadcast(event: ManagerEvent): void {
    if (event.name === 'SuccessfulAuth') this.counters.loginsAccepted += 1;
    else if (event.classes.includes('security')) this.counters.loginsFailed += 1;
    if (this.#sessions.size === 0) return;
    const text = formatMessage(formatEventFields(event, { timestamp: this.#config.timestampEvents }));
    for (const session of this.#sessions) if (session.deliver(event, text)) this.counters.eventsSent += 1;
  }

  #onDomainEvent(event: TimedDomainEvent): void {
    // The translator keeps linked ids even with nobody connected, so later listings stay right.
    for (const managerEvent of this.#translator.translate(event)) this.broadcast(managerEvent);
    if (event.type === 'DeviceStateChanged' && this.#sessions.size > 0) {
      const core = this.#options.core;
      for (const { context, exten } of hintsWithDevice(core, event.device_state.name)) {
        this.#track(
          extensionState(core, context, exten).then((state) => {
            if (!state) return;
            this.broadcast({
              name: 'ExtensionStatus',
              classes: ['call'],
              fields: [
                ['Exten', state.exten],
                ['Context', state.context],
                ['Hint', state.hint],
                ['Status', String(state.status)],
                ['StatusText', state.statusText],
              ],
            });
          }),
        );
      }
    }
  }

  #track(work: Promise<void>): void {
    const guarded = work.catch((err: unknown) => this.#log.warn({ err }, 'manager background work failed'));
    this.#pending.add(guarded);
    void guarded.finally(() => this.#pending.delete(guarded));
  }

  #refusal(socket: Socket): string | undefined {
    const config = this.#config;
    if (this.#sessions.size >= config.maxSessions) return 'Too many sessions';
    const address = normalizeAddress(socket.remoteAddress ?? '');
    let fromAddress = 0;
    let unauthenticated = 0;
    for (const s of this.#sessions) {
      if (normalizeAddress(s.remoteAddress) === address) fromAddress += 1;
      if (!s.authenticated) unauthenticated += 1;
    }
    if (fromAddress >= config.maxSessionsPerAddress) return 'Too many sessions from this address';
    if (unauthenticated >= config.authLimit) return 'Too many sessions waiting to log in';
    return undefined;
  }

  #accept(socket: Socket, tls: boolean): void {
    socket.on('error', () => undefined);
    const refusal = this.#refusal(socket);
    if (refusal) {
      this.counters.connectionsRejected += 1;
      this.#log.warn({ remote: socket.remoteAddress, reason: refusal }, 'manager connection refused');
      socket.end(
        formatMessage([
          ['Response', 'Error'],
          ['Message', refusal],
        ]),
      );
      setTimeout(() => socket.destroy(), FLUSH_GRACE_MS).unref();
      return;
    }
    this.counters.connectionsAccepted += 1;
    const session = new ManagerSession(socket, {
      tls,
      handle: async (s, message) => {
        const result = await this.#dispatcher.handle(s, message);
        if (s.authenticated) this.#clearAuthTimer(s);
        return result;
      },
      actionsPerSecond: this.#config.actionsPerSecond,
      writeTimeoutMs: MANAGER_DEFAULTS.writeTimeoutMs,
      onAction: (name) => {
        // Names nobody defined are counted together: a client, logged in or not, must not grow the table.
        const trimmed = name.trim();
        const key = this.#dispatcher.knows(trimmed) ? trimmed.toLowerCase() : UNKNOWN_ACTION;
        this.counters.actions.set(key, (this.counters.actions.get(key) ?? 0) + 1);
      },
      onClose: (s, reason) => {
        this.#sessions.delete(s);
        this.#clearAuthTimer(s);
        if (/write timed out|does not read/.test(reason)) this.counters.slowClientsDropped += 1;
        this.#log.info({ remote: s.remoteAddress, user: s.user?.name, reason }, 'manager session closed');
      },
    });
    this.#sessions.add(session);
    this.#authTimers.set(
      session,
      setTimeout(() => {
        if (!session.authenticated) session.close('not logged in within authtimeout');
      }, this.#config.authTimeoutMs),
    );
    this.#log.info({ remote: session.remoteAddress, tls }, 'manager session opened');
    session.write(MANAGER_BANNER);
  }

  #clearAuthTimer(session: ManagerSession): void {
    const timer = this.#authTimers.get(session);
    if (timer) clearTimeout(timer);
    this.#authTimers.delete(session);
  }

  /** Closes the listeners and every session; waits for background work (async Originate replies). */
  async close(): Promise<void> {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    const closing = this.#servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const session of [...this.#sessions]) session.close('server shutting down', true);
    await Promise.all(closing);
    await Promise.allSettled([...this.#pending]);
  }
}
