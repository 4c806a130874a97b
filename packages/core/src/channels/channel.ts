import type { ChannelTechnology, TransferProgressState } from '../drivers/channel-technology.js';
import { CoreError, notImplemented, preconditionFailed } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { canTransition, type ChannelState } from '../model/channel-state.js';
import type { CallerId, ChannelSnapshot, DialplanLocation } from '../model/snapshots.js';
import type { Logger } from '../util/logger.js';
import { formatWireDate } from '../util/time.js';
import { CAUSE_NORMAL_CLEARING, causeText } from './hangup-causes.js';
import { isFunctionEntry, snapshotVariableValue } from './snapshot-variables.js';

export interface ChannelInit {
  id: string;
  name: string;
  technology: string;
  endpoint: string;
  direction: 'inbound' | 'outbound';
  state: ChannelState;
  caller: CallerId;
  language: string;
  dialplan: Pick<DialplanLocation, 'context' | 'exten' | 'priority'>;
  tech: ChannelTechnology;
  /** Names of variables shown in every snapshot (ari.conf `channelvars`). */
  snapshotVariables: readonly string[];
  /** Redirecting number (RDNIS), when the call came with one. */
  callerRdnis?: string;
  /** Tenant identifier from the endpoint configuration, when set. */
  tenantId?: string;
}

/** Things that must happen, in order, when a channel goes away (playbacks end, the app is left). */
export type ChannelHangupHook = (channel: Channel, cause: number) => void;

/**
 * One call leg. The channel owns its state machine and its variables; the technology side (SIP)
 * owns the signalling. A channel is never moved to a "hung up" state: it is destroyed.
 */
export class Channel {
  readonly id: string;
  readonly name: string;
  readonly technology: string;
  readonly endpoint: string;
  readonly direction: 'inbound' | 'outbound';
  readonly createdAt = new Date();
  /** `createdAt` as the wire shows it, formatted once: every snapshot (each event, each GET) carries it. */
  #creationTime: string | null = null;
  readonly tech: ChannelTechnology;
  /** Where the dialplan is; changed only through enterDialplanApp (the snapshot cache relies on it). */
  readonly dialplan: Readonly<DialplanLocation>;
  /** Name of the application the channel is in, while it is in one. */
  application: string | undefined;
  hangupCause: number | undefined;

  // What a snapshot shows is kept in private fields behind setters, so that every change drops the
  // cached snapshot: one snapshot is shared by every event and every GET until something changes.
  #caller: Readonly<CallerId>;
  #connected: Readonly<CallerId> = { name: '', number: '' };
  #accountcode = '';
  #language: string;
  #callerRdnis: string;
  #tenantId: string;
  #dialplan: DialplanLocation;
  /** The last snapshot, frozen; null once anything it shows has changed. */
  #snapshot: ChannelSnapshot | null = null;
  #state: ChannelState;
  readonly #variables = new Map<string, string>();
  /** Grows when a variable is set with `report_events` (reference setChannelVar). */
  readonly #snapshotVariables: string[];
  /**
   * Created on the first `hangupSignal` read: most channels (a call answered and hung up by the
   * dialplan) never wait on it, and building the controller and its abort reason for every channel
   * showed in the main thread's profile at high call rates (bench/README.md).
   */
  #abort: AbortController | null = null;
  /** `whenHungUp` listeners; null until the first. */
  #hangupListeners: Set<() => void> | null = null;
  readonly #hooks: ChannelHangupHook[] = [];
  readonly #bus: EventBus;
  readonly #log: Logger;
  #destroyed = false;

  constructor(init: ChannelInit, bus: EventBus, log: Logger) {
    this.id = init.id;
    this.name = init.name;
    this.technology = init.technology;
    this.endpoint = init.endpoint;
    this.direction = init.direction;
    this.tech = init.tech;
    this.#caller = init.caller;
    this.#language = init.language;
    this.#dialplan = { ...init.dialplan, app_name: '', app_data: '' };
    this.dialplan = this.#dialplan;
    this.#state = init.state;
    this.#snapshotVariables = [...init.snapshotVariables];
    this.#callerRdnis = init.callerRdnis ?? '';
    this.#tenantId = init.tenantId ?? '';
    this.#bus = bus;
    this.#log = log.child({ channel: init.name });
  }

  get state(): ChannelState {
    return this.#state;
  }

  get caller(): Readonly<CallerId> {
    return this.#caller;
  }

  /** Replaces the caller identification without an event (setCaller announces the change). */
  set caller(caller: Readonly<CallerId>) {
    this.#caller = { name: caller.name, number: caller.number };
    this.#changed();
  }

  get connected(): Readonly<CallerId> {
    return this.#connected;
  }

  get accountcode(): string {
    return this.#accountcode;
  }

  set accountcode(value: string) {
    this.#accountcode = value;
    this.#changed();
  }

  get language(): string {
    return this.#language;
  }

  set language(value: string) {
    this.#language = value;
    this.#changed();
  }

  /** Redirecting number (RDNIS), '' when the call came without one. */
  get callerRdnis(): string {
    return this.#callerRdnis;
  }

  set callerRdnis(value: string) {
    this.#callerRdnis = value;
    this.#changed();
  }

  get tenantId(): string {
    return this.#tenantId;
  }

  set tenantId(value: string) {
    this.#tenantId = value;
    this.#changed();
  }

  get isDestroyed(): boolean {
    return this.#destroyed;
  }

  /** Aborted when the channel hangs up: long-running work on the channel listens to it. */
  get hangupSignal(): AbortSignal {
    if (this.#abort === null) {
      this.#abort = new AbortController();
      if (this.#destroyed) this.#abort.abort(hungUpReason());
    }
    return this.#abort.signal;
  }

  /**
   * Calls `listener` once when the channel hangs up, at the moment `hangupSignal` aborts; the answer
   * removes it. Nothing is called for a channel already hung up (as a listener added to an aborted
   * signal), and one function added twice is called once (as an EventTarget's).
   *
   * For the per-call paths (Dial(), bridged calls), where an EventTarget listener and its abort event
   * showed in the main thread's profile at high call rates. Unlike `onHangup` hooks these run before
   * the registries' own hooks (as the signal's listeners they replace did) and can be removed.
   */
  whenHungUp(listener: () => void): () => void {
    if (this.#destroyed) return noop;
    this.#hangupListeners ??= new Set();
    const listeners = this.#hangupListeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  /**
   * What the API shows of the channel. The snapshot is frozen and kept until something it shows
   * changes, so the events of one call step and every GET in between share one object (and the API
   * can keep its JSON by identity). Entries of `channelvars` written as dialplan functions may read
   * anything, so a channel that shows one builds its snapshot afresh every time.
   */
  snapshot(): Readonly<ChannelSnapshot> {
    const cached = this.#snapshot;
    if (cached !== null && cached.protocol_id === this.tech.protocolId) return cached;
    const snapshot = this.#buildSnapshot();
    if (!this.#snapshotVariables.some(isFunctionEntry)) this.#snapshot = snapshot;
    return snapshot;
  }

  #buildSnapshot(): Readonly<ChannelSnapshot> {
    if (this.#creationTime === null) this.#creationTime = formatWireDate(this.createdAt);
    const snapshot: ChannelSnapshot = {
      id: this.id,
      protocol_id: this.tech.protocolId,
      name: this.name,
      state: this.#state,
      caller: Object.freeze({ ...this.#caller }),
      connected: Object.freeze({ ...this.#connected }),
      accountcode: this.#accountcode,
      dialplan: Object.freeze({ ...this.#dialplan }),
      creationtime: this.#creationTime,
      language: this.#language,
    };
    if (this.#snapshotVariables.length > 0) {
      const vars: Record<string, string> = {};
      for (const name of this.#snapshotVariables) vars[name] = snapshotVariableValue(this, name);
      snapshot.channelvars = Object.freeze(vars);
    }
    // Both are shown only when set (reference channels.md, Channel model).
    if (this.#callerRdnis !== '') snapshot.caller_rdnis = this.#callerRdnis;
    if (this.#tenantId !== '') snapshot.tenantid = this.#tenantId;
    return Object.freeze(snapshot);
  }

  /** Something a snapshot shows changed: the next snapshot() builds a new one. */
  #changed(): void {
    this.#snapshot = null;
  }

  setState(next: ChannelState): void {
    if (this.#destroyed || next === this.#state) return;
    if (!canTransition(this.#state, next)) {
      this.#log.warn({ from: this.#state, to: next }, 'refused channel state change');
      return;
    }
    this.#state = next;
    this.#changed();
    this.#bus.publish({ type: 'ChannelStateChange', channel: this.snapshot() });
  }

  getVariable(name: string): string | undefined {
    return this.#variables.get(name);
  }

  setVariable(name: string, value: string): void {
    this.#variables.set(name, value);
    if (this.#snapshotVariables.includes(name)) this.#changed();
    this.#bus.publish({ type: 'ChannelVarset', channel: this.snapshot(), variable: name, value });
  }

  /** Removes a variable (a set without a value); ChannelVarset announces it with an empty value. */
  unsetVariable(name: string): void {
    this.#variables.delete(name);
    if (this.#snapshotVariables.includes(name)) this.#changed();
    this.#bus.publish({ type: 'ChannelVarset', channel: this.snapshot(), variable: name, value: '' });
  }

  /** Shows `name` in the `channelvars` of every later snapshot (setChannelVar with report_events). */
  reportVariable(name: string): void {
    if (this.#snapshotVariables.includes(name)) return;
    this.#snapshotVariables.push(name);
    this.#changed();
  }

  /** Publishes ChannelCallerId after the caller identification changed. */
  setCaller(caller: CallerId): void {
    this.caller = caller;
    this.#bus.publish({
      type: 'ChannelCallerId',
      channel: this.snapshot(),
      caller_presentation: 0,
      caller_presentation_txt: 'Presentation Allowed, Not Screened',
    });
  }

  /**
   * The party this channel is connected to changed (connected line): publishes
   * ChannelConnectedLine when the name or number differs; returns whether it did.
   */
  setConnected(connected: CallerId): boolean {
    if (this.connected.name === connected.name && this.connected.number === connected.number) return false;
    this.#connected = { name: connected.name, number: connected.number };
    this.#changed();
    this.#bus.publish({ type: 'ChannelConnectedLine', channel: this.snapshot() });
    return true;
  }

  /** Records which dialplan application runs now (shown as `dialplan.app_name`/`app_data`). */
  enterDialplanApp(location: Pick<DialplanLocation, 'context' | 'exten' | 'priority'>, app: string, data: string): void {
    Object.assign(this.#dialplan, location, { app_name: app, app_data: data });
    this.#changed();
    this.#bus.publish({ type: 'ChannelDialplan', channel: this.snapshot(), dialplan_app: app, dialplan_app_data: data });
  }

  /**
   * Media and state operations are refused on an outbound channel that has not answered yet
   * (412 in the API); an inbound one can always take early media.
   */
  assertReadyForMedia(): void {
    this.#assertAlive();
    if (this.direction === 'outbound' && this.#state !== 'Up') throw preconditionFailed('Channel is not answered yet');
  }

  /** Answers an inbound channel; a channel that is already up stays up. */
  async answer(): Promise<void> {
    this.#assertAlive();
    if (this.#state === 'Up') return;
    if (this.direction === 'outbound') throw preconditionFailed('Channel is not answered yet');
    await this.tech.answer();
    this.setState('Up');
  }

  /** Sends ringing (inbound, unanswered only). */
  async indicateRinging(): Promise<void> {
    this.#assertAlive();
    if (this.#state === 'Up') return;
    await this.tech.indicateRinging();
    this.setState('Ringing');
  }

  /** Opens early media without answering (inbound, unanswered only). */
  async indicateProgress(): Promise<void> {
    this.#assertAlive();
    if (this.#state === 'Up') return;
    await this.tech.indicateProgress();
  }

  /**
   * Asks the technology to send the call elsewhere (SIP 302 or REFER). `resource` is the part of
   * the target endpoint after the technology, already checked to be of this channel's technology.
   */
  async redirect(resource: string): Promise<void> {
    this.#assertAlive();
    if (!this.tech.redirect) throw notImplemented(`Technology ${this.technology} cannot redirect a call`);
    await this.tech.redirect(resource);
  }

  /** Reports the progress of a transfer the far end asked for; 501 when the technology cannot. */
  async transferProgress(state: TransferProgressState): Promise<void> {
    this.#assertAlive();
    if (!this.tech.transferProgress) throw notImplemented(`Technology ${this.technology} cannot report transfer progress`);
    await this.tech.transferProgress(state);
  }

  /** Sends a text message to the far end inside the call; 501 when the technology cannot. */
  async sendText(text: string): Promise<void> {
    this.#assertAlive();
    if (!this.tech.sendText) throw notImplemented(`Technology ${this.technology} cannot send text`);
    await this.tech.sendText(text);
  }

  onHangup(hook: ChannelHangupHook): void {
    this.#hooks.push(hook);
  }

  /** Hangs up from our side (API, dialplan, shutdown). */
  async hangup(cause = CAUSE_NORMAL_CLEARING, soft = false): Promise<void> {
    if (this.#destroyed) return;
    this.#bus.publish({ type: 'ChannelHangupRequest', channel: this.snapshot(), cause, soft });
    this.destroy(cause);
    try {
      await this.tech.hangup(cause);
    } catch (err) {
      this.#log.warn({ err }, 'technology hangup failed');
    }
  }

  /** The far end hung up, or the driver gave up on the call. */
  remoteHangup(cause: number): void {
    this.destroy(cause);
  }

  destroy(cause: number): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.hangupCause = cause;
    this.#abort?.abort(hungUpReason());
    const listeners = this.#hangupListeners;
    this.#hangupListeners = null;
    if (listeners !== null) {
      for (const listener of listeners) {
        try {
          listener();
        } catch (err) {
          this.#log.error({ err }, 'hangup listener failed');
        }
      }
    }
    for (const hook of this.#hooks) {
      try {
        hook(this, cause);
      } catch (err) {
        this.#log.error({ err }, 'hangup hook failed');
      }
    }
    this.#bus.publish({ type: 'ChannelDestroyed', channel: this.snapshot(), cause, cause_txt: causeText(cause) });
  }

  #assertAlive(): void {
    if (this.#destroyed) throw new CoreError('not_found', 'Channel not found');
  }
}

function noop(): void {}

/**
 * The abort reason of a hung-up channel's signal. Nobody reads its stack (it says only that the
 * channel hung up), so it is built without capturing one, which is most of an Error's cost.
 */
function hungUpReason(): CoreError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new CoreError('conflict', 'Channel hung up');
  } finally {
    Error.stackTraceLimit = limit;
  }
}
