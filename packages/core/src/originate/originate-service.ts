/**
 * Outbound channels made through the API: originate (create and dial; on answer an application or
 * the dialplan), create (a channel placed in an application at once, dialled later) and dial.
 * The driver of the endpoint's technology builds the call (`prepareOutbound`); this owns the
 * channel, its variables, the answer timeout and the Dial events.
 *
 *   originate ─► Down ──dial──► Ringing ──answered──► Up ─► App(app) | dialplan
 *                  │               │
 *                  └───────────────┴── busy / no answer / timeout / hangup ─► destroyed
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import type { ChannelMediaControl } from '../channels/channel-media-control.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import { HANGUP_REASONS } from '../channels/hangup-causes.js';
import { parseCallerId, type ChannelVariableAccess, type VariableSetting } from '../channels/variable-access.js';
import { splitArgs } from '../dialplan/split-args.js';
import type {
  ChannelDriver,
  ChannelTechnologyEvents,
  OutboundCall,
  TransferDecision,
  TransferRequestInfo,
} from '../drivers/channel-technology.js';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { AudioCodecName } from '../media/media-engine.js';
import type { CallerId } from '../model/snapshots.js';
import { runInApplication } from '../pbx/application-session.js';
import type { DialplanRunner, DialplanTarget } from '../pbx/dialplan-runner.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { CAUSE_CHANNEL_UNAVAILABLE, dialStatusForCause } from './dial-status.js';
import { parseEndpoint } from './endpoint.js';
import { parseFormats } from './formats.js';

/** Originate's answer timeout when none (or 0) is given. */
export const DEFAULT_ORIGINATE_TIMEOUT_SECONDS = 30;

/** The parameters shared by originate and create, as the API receives them. */
export interface OutboundChannelRequest {
  endpoint: string | undefined;
  appArgs?: string;
  channelId?: string;
  otherChannelId?: string;
  originator?: string;
  /** Format names (`ulaw`, `alaw`, …); mutually exclusive with `originator`. */
  formats?: readonly string[];
  variables?: readonly VariableSetting[];
}

export interface OriginateRequest extends OutboundChannelRequest {
  app?: string;
  /** A dialplan application run on the answered channel, then hung up (the manager's Originate). */
  dialplanApp?: { name: string; data: string };
  /** Core's own use of the answered channel (the manager's attended transfer bridges it). */
  afterAnswer?: (channel: Channel) => Promise<void>;
  extension?: string;
  context?: string;
  priority?: number;
  label?: string;
  callerId?: string;
  /** Seconds to wait for an answer; -1 waits for ever; 0 or absent means 30. */
  timeout?: number;
}

export interface CreateRequest extends OutboundChannelRequest {
  app: string | undefined;
}

export interface DialRequest {
  /** Id of a channel treated as the caller (language and caller id are taken from it). */
  caller?: string;
  /** Seconds; 0 or absent waits for ever. */
  timeout?: number;
}

export interface OriginateDeps {
  channels: ChannelRegistry;
  applications: ApplicationRegistry;
  dialplanRunner: DialplanRunner;
  variables: ChannelVariableAccess;
  channelMedia: ChannelMediaControl;
  bus: EventBus;
  clock: Clock;
  log: Logger;
  driverFor(technology: string): ChannelDriver | undefined;
  defaultLanguage(): string;
  snapshotVariables(): readonly string[];
  /** Keeps work that outlives the request so that shutdown can wait for it. */
  track(work: Promise<void>): void;
  /** A far end's transfer request (SIP REFER) on an originated channel (channel-transfer.ts). */
  offerTransfer?(channel: Channel, request: TransferRequestInfo): TransferDecision;
}

interface Prepared {
  call: OutboundCall;
  dialstring: string;
}

type AnswerTarget =
  | { kind: 'app'; app: string; args: string[] }
  | { kind: 'dialplan'; target: DialplanTarget }
  | { kind: 'dialplanApp'; name: string; data: string }
  | { kind: 'callback'; run: (channel: Channel) => Promise<void> };

export class OriginateService {
  readonly #deps: OriginateDeps;
  /** Channels made by create and not dialled yet. */
  readonly #undialled = new Map<string, Prepared>();

  constructor(deps: OriginateDeps) {
    this.#deps = deps;
  }

  /** Creates the channel and starts dialling; resolves with the channel (not yet answered). */
  async originate(request: OriginateRequest): Promise<Channel> {
    const target = this.#answerTarget(request);
    const timeout = request.timeout ?? 0;
    if (!Number.isInteger(timeout) || timeout < -1) throw invalidArgument('timeout must be -1, 0 or a positive number of seconds');
    const caller = request.callerId ? parseCallerId(request.callerId) : { name: '', number: '' };
    const originator = this.#originator(request);
    const { channel, prepared } = await this.#createChannel(
      request,
      caller,
      target.kind === 'dialplan' ? target.target : undefined,
      target.kind === 'app' ? target.app : undefined,
      originator,
    );
    this.#dial(channel, prepared, {
      timeoutSeconds: timeout === -1 ? 0 : timeout === 0 ? DEFAULT_ORIGINATE_TIMEOUT_SECONDS : timeout,
      caller: originator,
      onAnswer: () => this.#afterAnswer(channel, target),
    });
    return channel;
  }

  /** Creates the channel and places it in `app` at once (AppStart); `dial` starts the call. */
  async create(request: CreateRequest): Promise<Channel> {
    if (!request.app) throw invalidArgument('app is required');
    const app = request.app;
    const originator = this.#originator(request);
    const { channel, prepared } = await this.#createChannel(request, { name: '', number: '' }, undefined, app, originator);
    this.#undialled.set(channel.id, prepared);
    channel.onHangup(() => this.#undialled.delete(channel.id));
    if (originator) this.#deps.applications.get(app)?.subscribe('channel', originator.id);
    this.#deps.track(runInApplication(this.#deps, channel, app, splitAppArgs(request.appArgs)));
    return channel;
  }

  /** Dials a channel made by create (409 when it was not, or when it is not in an application or not Down). */
  dial(channel: Channel, request: DialRequest): void {
    this.#deps.applications.requireControlled(channel);
    const prepared = this.#undialled.get(channel.id);
    if (!prepared || (channel.state !== 'Down' && channel.state !== 'Rsrvd')) {
      throw conflict('Channel was not made by create or is already dialled');
    }
    const timeout = request.timeout ?? 0;
    if (!Number.isInteger(timeout) || timeout < 0) throw invalidArgument('timeout must be 0 or a positive number of seconds');
    let caller: Channel | undefined;
    if (request.caller) {
      caller = this.#deps.channels.get(request.caller);
      if (!caller) throw notFound('Caller channel not found');
      channel.language = caller.language;
    }
    this.#undialled.delete(channel.id);
    this.#dial(channel, prepared, { timeoutSeconds: timeout, caller, onAnswer: () => undefined });
  }

  #answerTarget(request: OriginateRequest): AnswerTarget {
    if (request.afterAnswer) return { kind: 'callback', run: request.afterAnswer };
    if (request.dialplanApp) {
      if (request.app || request.extension) throw invalidArgument('Give an application or an extension, not both');
      if (!this.#deps.dialplanRunner.hasApplication(request.dialplanApp.name)) {
        throw invalidArgument(`Unknown dialplan application '${request.dialplanApp.name}'`);
      }
      return { kind: 'dialplanApp', name: request.dialplanApp.name, data: request.dialplanApp.data };
    }
    const hasDialplan = Boolean(request.extension) || Boolean(request.label);
    if (request.app && hasDialplan) throw invalidArgument('Give either app or extension/context/priority/label, not both');
    if (request.app) return { kind: 'app', app: request.app, args: splitAppArgs(request.appArgs) };
    if (!request.extension) throw invalidArgument('Either app or extension is required');
    const context = request.context || 'default';
    if (request.label) {
      const priority = this.#deps.dialplanRunner.findLabel(context, request.extension, request.label);
      if (priority === undefined) throw notFound(`Label '${request.label}' not found`);
      if (priority === 0) throw invalidArgument(`Label '${request.label}' does not name a priority`);
      return { kind: 'dialplan', target: { context, exten: request.extension, priority } };
    }
    const priority = request.priority ?? 1;
    if (!Number.isInteger(priority) || priority < 1) throw invalidArgument('priority must be 1 or more');
    return { kind: 'dialplan', target: { context, exten: request.extension, priority } };
  }

  #originator(request: OutboundChannelRequest): Channel | undefined {
    if (request.originator && request.formats) throw invalidArgument('originator and formats cannot both be given');
    if (!request.originator) return undefined;
    const originator = this.#deps.channels.get(request.originator);
    if (!originator) throw invalidArgument(`Originator channel '${request.originator}' not found`);
    return originator;
  }

  async #createChannel(
    request: OutboundChannelRequest,
    requestedCaller: CallerId,
    dialplan: DialplanTarget | undefined,
    application: string | undefined,
    originator: Channel | undefined,
  ): Promise<{ channel: Channel; prepared: Prepared }> {
    const { channels } = this.#deps;
    if (request.channelId !== undefined) channels.assertIdAvailable(request.channelId);
    if (request.otherChannelId !== undefined) {
      channels.assertIdAvailable(request.otherChannelId);
      if (request.otherChannelId === request.channelId) throw invalidArgument('channelId and otherChannelId must differ');
    }
    const formats: AudioCodecName[] | undefined = request.formats ? parseFormats(request.formats) : undefined;
    let caller = requestedCaller;
    const endpoint = parseEndpoint(request.endpoint);
    const driver = this.#deps.driverFor(endpoint.technology);
    if (!driver) throw invalidArgument(`Unknown technology '${endpoint.technology}'`);
    if (!driver.prepareOutbound) throw invalidArgument(`Technology '${endpoint.technology}' cannot originate calls`);
    const variables = plainVariables(request.variables ?? []);
    // CALLERID(...) among the variables is the caller id the far end should see, so the driver gets it too.
    caller = callerFromVariables(caller, request.variables ?? []);
    const call = driver.prepareOutbound({
      resource: endpoint.resource,
      caller,
      formats,
      variables,
      ...(request.otherChannelId === undefined ? {} : { otherChannelId: request.otherChannelId }),
      mediaNear: originator?.tech.mediaLegId,
    });
    const channel = channels.create({
      id: request.channelId,
      name: call.name,
      technology: driver.technology,
      endpoint: call.endpoint,
      direction: 'outbound',
      state: 'Down',
      caller,
      language: this.#deps.defaultLanguage(),
      dialplan: { context: dialplan?.context ?? 'default', exten: dialplan?.exten ?? 's', priority: dialplan?.priority ?? 1 },
      tech: call.tech,
      snapshotVariables: this.#deps.snapshotVariables(),
    });
    // The application hears about the channel from the start, not only from AppStart (SPEC §4.4 rule 6).
    if (application !== undefined) this.#deps.applications.get(application)?.subscribe('channel', channel.id);
    try {
      for (const setting of request.variables ?? []) await this.#deps.variables.set(channel, setting);
    } catch (err) {
      await channel.hangup(HANGUP_REASONS.normal);
      throw err;
    }
    return { channel, prepared: { call, dialstring: `${endpoint.technology}/${endpoint.resource}` } };
  }

  #dial(
    channel: Channel,
    prepared: Prepared,
    options: { timeoutSeconds: number; caller: Channel | undefined; onAnswer: () => void },
  ): void {
    const { bus, clock, log } = this.#deps;
    let answered = false;
    let settled = false;
    const publish = (dialstatus: string) => {
      const event = { type: 'Dial' as const, peer: channel.snapshot(), dialstring: prepared.dialstring, dialstatus };
      bus.publish(options.caller ? { ...event, caller: options.caller.snapshot() } : event);
    };
    const finish = (dialstatus: string) => {
      if (answered || settled) return;
      settled = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      publish(dialstatus);
    };
    const timer =
      options.timeoutSeconds > 0
        ? clock.setTimeout(() => {
            if (answered || channel.isDestroyed) return;
            finish('NOANSWER');
            void channel.hangup(HANGUP_REASONS.no_answer);
          }, options.timeoutSeconds * 1000)
        : undefined;
    channel.onHangup(() => finish('CANCEL'));
    const events: ChannelTechnologyEvents = {
      ringing: () => {
        if (answered || channel.isDestroyed) return;
        channel.setState('Ringing');
        publish('RINGING');
      },
      progress: () => {
        if (!answered && !channel.isDestroyed) publish('PROGRESS');
      },
      answered: () => {
        if (answered || channel.isDestroyed) return;
        answered = true;
        if (timer !== undefined) clock.clearTimeout(timer);
        channel.setState('Up');
        publish('ANSWER');
        options.onAnswer();
      },
      held: (onHold) => this.#deps.channelMedia.remoteHold(channel, onHold),
      dtmf: (digit, durationMs) => this.#deps.channelMedia.remoteDtmf(channel, digit, durationMs),
      hungUp: (cause) => {
        finish(dialStatusForCause(cause));
        channel.remoteHangup(cause);
      },
      transferRequested: (request) => this.#deps.offerTransfer?.(channel, request) ?? { kind: 'refused' },
    };
    publish('');
    prepared.call.dial(events, { timeoutSeconds: options.timeoutSeconds }).catch((err: unknown) => {
      log.warn({ err, channel: channel.name }, 'outbound call could not start');
      finish('CHANUNAVAIL');
      channel.remoteHangup(CAUSE_CHANNEL_UNAVAILABLE);
    });
  }

  #afterAnswer(channel: Channel, target: AnswerTarget): void {
    const work =
      target.kind === 'app'
        ? runInApplication(this.#deps, channel, target.app, target.args)
        : target.kind === 'dialplanApp'
          ? this.#deps.dialplanRunner.runApplication(channel, target.name, target.data)
          : target.kind === 'callback'
            ? target.run(channel)
            : this.#deps.dialplanRunner.runTarget(channel, target.target);
    this.#deps.track(work);
  }
}

/** appArgs is one comma-separated string, split like dialplan application arguments. */
export function splitAppArgs(appArgs: string | undefined): string[] {
  return appArgs ? splitArgs(appArgs) : [];
}

function callerFromVariables(caller: CallerId, settings: readonly VariableSetting[]): CallerId {
  let result = { ...caller };
  for (const { name, value } of settings) {
    const field = /^CALLERID\((\w+)\)$/i.exec(name.trim())?.[1]?.toLowerCase();
    if (value === undefined || field === undefined) continue;
    if (field === 'name') result.name = value;
    else if (field === 'num' || field === 'number') result.number = value;
    else if (field === 'all') result = parseCallerId(value);
  }
  return result;
}

/** Drivers get plain variables (SIP headers and the like); functions are the channel's business. */
function plainVariables(settings: readonly VariableSetting[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const { name, value } of settings) if (value !== undefined && !name.includes('(')) variables[name] = value;
  return variables;
}
