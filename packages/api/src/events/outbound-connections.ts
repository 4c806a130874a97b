/**
 * The outbound WebSockets of ari.conf (`type = outbound_websocket`), as the reference runs them:
 *
 * - `persistent`: one link per connection, open for as long as the connection is configured.
 * - `per_call_config`: nothing at start. When a channel enters one of its apps while no
 *   connection serves that app, a link of its own is opened for that channel alone, serving the
 *   ephemeral application `<app>:<channel name>` (the name its ApplicationRegistered, AppStart
 *   and REST `app` parameters use); it closes — after AppEnd and ApplicationUnregistered — when
 *   the channel leaves. Two concurrent calls have two connections, each seeing only its own call.
 *
 * A reload of ari.conf (`module reload res_ari`) is followed at once: a persistent connection
 * that was added opens, one that was removed unregisters its apps and closes, one whose
 * `connection_timeout`, `reconnect_interval` or `reconnect_attempts` alone changed keeps its
 * socket (the new values apply to its next reconnect), any other change reconnects it, resuming
 * after the last event written. Per-call configurations apply to calls that enter from then on;
 * calls in progress keep their connection.
 */
import type { Channel, Logger, OutboundWebsocketConfig, SwitchboardCore } from '@switchboard/core';
import type { UpgradeContext } from '../http/operation.js';
import { OutboundLink } from './outbound-link.js';

type Upgrade = () => Omit<UpgradeContext, 'credentials'>;

/** Options a live persistent connection takes without reconnecting (the reference's rule). */
const RETRY_OPTIONS = new Set<keyof OutboundWebsocketConfig>(['connectionTimeoutMs', 'reconnectIntervalMs', 'reconnectAttempts']);

/** Whether two configurations differ only in the options that apply at the next reconnect. */
function onlyRetryOptionsDiffer(a: OutboundWebsocketConfig, b: OutboundWebsocketConfig): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof OutboundWebsocketConfig)[]);
  for (const key of keys) {
    if (RETRY_OPTIONS.has(key)) continue;
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return false;
  }
  return true;
}

export class OutboundConnections {
  readonly #core: SwitchboardCore;
  readonly #log: Logger;
  readonly #upgrade: Upgrade;
  /** Persistent links by connection name. */
  readonly #persistent = new Map<string, OutboundLink>();
  /** per_call_config connections by name: templates for the links of calls entering from now on. */
  #perCallConfigs = new Map<string, OutboundWebsocketConfig>();
  /** The link of each call that entered a per-call application, by channel id. */
  readonly #calls = new Map<string, OutboundLink>();
  #unsubscribe: (() => void)[] = [];
  #started = false;

  constructor(core: SwitchboardCore, log: Logger, upgrade: Upgrade) {
    this.#core = core;
    this.#log = log;
    this.#upgrade = upgrade;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#apply(this.#core.config.ari.outboundWebsockets);
    this.#core.applications.setActivator((name, channel) => this.#activate(name, channel));
    this.#unsubscribe = [
      this.#core.bus.subscribe((event) => {
        if (event.type === 'AppEnd' || event.type === 'ChannelDestroyed') this.#callLeft(event.channel.id, event);
      }),
      this.#core.onAriReloaded(() => this.#apply(this.#core.config.ari.outboundWebsockets)),
    ];
  }

  close(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    if (this.#started) this.#core.applications.setActivator(undefined);
    for (const link of [...this.#persistent.values(), ...this.#calls.values()]) link.shutdown();
    this.#persistent.clear();
    this.#calls.clear();
  }

  /** Brings the running links in line with a configuration (at start and after each reload). */
  #apply(configs: readonly OutboundWebsocketConfig[]): void {
    const persistent = configs.filter((c) => c.connectionType === 'persistent');
    this.#perCallConfigs = new Map(configs.filter((c) => c.connectionType === 'per_call_config').map((c) => [c.name, c]));
    const wanted = new Map(persistent.map((c) => [c.name, c]));
    for (const [name, link] of this.#persistent) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === JSON.stringify(link.config)) continue;
      if (next && onlyRetryOptionsDiffer(next, link.config)) {
        link.config = next;
        continue;
      }
      // Removed, or changed in what the socket depends on: its apps are unregistered and it closes.
      const resumeFrom = link.lastWritten();
      link.shutdown({ unregister: !next });
      this.#persistent.delete(name);
      this.#log.info({ connection: name }, next ? 'outbound WebSocket reconfigured: reconnecting' : 'outbound WebSocket removed');
      if (next) this.#openPersistent(next, resumeFrom);
    }
    for (const config of persistent) if (!this.#persistent.has(config.name)) this.#openPersistent(config, undefined);
  }

  #openPersistent(config: OutboundWebsocketConfig, resumeFrom: ReadonlyMap<string, number> | undefined): void {
    const link = new OutboundLink(config, this.#core, this.#log, this.#upgrade);
    link.resumeAfter(resumeFrom);
    this.#persistent.set(config.name, link);
    link.startPersistent();
  }

  /**
   * A channel enters `app`, which nothing serves: when a per-call connection lists it, a link of
   * the channel's own is opened and the channel enters `<app>:<channel name>` once it is up.
   */
  #activate(app: string, channel: Channel): Promise<string | undefined> | undefined {
    const template = [...this.#perCallConfigs.values()].find((c) => c.apps.includes(app));
    if (!template) return undefined;
    const ephemeral = `${app}:${channel.name}`;
    const link = new OutboundLink(
      { ...template, name: `${template.name}:${channel.name}`, apps: [ephemeral] },
      this.#core,
      this.#log,
      this.#upgrade,
    );
    this.#calls.get(channel.id)?.shutdown({ unregister: true });
    this.#calls.set(channel.id, link);
    return link.ensureOpen().then((open) => {
      if (open && !channel.isDestroyed && this.#calls.get(channel.id) === link) return ephemeral;
      this.#forgetCall(channel.id, link);
      return undefined;
    });
  }

  /** The channel left its per-call application (or is gone): its connection closes. */
  #callLeft(channelId: string, event: { type: string; application?: string }): void {
    const link = this.#calls.get(channelId);
    if (!link) return;
    if (event.type === 'AppEnd' && !link.config.apps.includes(event.application ?? '')) return;
    link.callPresent = false;
    // After the AppEnd has been delivered: the application hears its channel leave before the connection closes.
    setImmediate(() => this.#forgetCall(channelId, link));
  }

  #forgetCall(channelId: string, link: OutboundLink): void {
    link.callPresent = false;
    link.shutdown({ unregister: true });
    if (this.#calls.get(channelId) === link) this.#calls.delete(channelId);
  }
}
