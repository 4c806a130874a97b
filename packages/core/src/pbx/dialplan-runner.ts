import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import { CAUSE_NORMAL_CLEARING } from '../channels/hangup-causes.js';
import type { DialplanPriority } from '../config/types.js';
import type { PlaybackManager } from '../playback/playback-manager.js';
import type { Logger } from '../util/logger.js';
import { FLOW_APPLICATIONS } from './apps/flow-apps.js';
import { IVR_APPLICATIONS } from './apps/ivr-apps.js';
import { BUILTIN_APPLICATIONS } from './builtin-apps.js';
import { CHANNEL_FUNCTIONS } from './functions/channel-functions.js';
import { MESSAGE_FUNCTIONS, messageSend } from './message-routing.js';
import { channelVariable } from './channel-variables.js';
import type { DialplanAppContext, DialplanApplication, DialplanFlow } from './dialplan-app.js';
import { type DialplanProblem, findDialplanProblems } from './dialplan-check.js';
import { createPbxServices, type DialplanFunction, type DialplanFunctionContext, type PbxServices } from './pbx-services.js';

/** The parts of the dialplan the runner reads (implemented by dialplan/Dialplan). */
export interface DialplanLookup {
  findPriority(context: string, exten: string, priority: number): { priority: DialplanPriority } | undefined;
  findLabel(context: string, exten: string, label: string): { priority: DialplanPriority } | undefined;
  findExtension?(context: string, exten: string): unknown;
  canMatchMore?(context: string, prefix: string): boolean;
  steps?(): Iterable<{ context: string; exten: string; priority: DialplanPriority }>;
}

export interface DialplanText {
  /** Expands `${…}` and `$[…]`; `lookup` answers `${NAME}` (args undefined) and `${FUNC(args)}`. */
  expand(text: string, lookup: (name: string, args?: string) => string | undefined, options?: { warn?: (message: string) => void }): string;
  /** Splits application arguments on commas, honouring quotes, parentheses and escapes. */
  splitArgs(text: string): string[];
}

export interface DialplanLocationRef {
  context: string;
  exten: string;
  priority: number;
}

/** A place to start in the dialplan: a priority, or a label that wins over it. */
export interface DialplanTarget {
  context: string;
  exten: string;
  priority?: number;
  label?: string;
}

/** Stops a channel that loops through the dialplan without ever waiting (a `Goto` loop). */
const MAX_STEPS_WITHOUT_WAITING = 10_000;
/** Steps an `h` extension may take: it runs after the hangup, where nothing waits. */
const MAX_HANGUP_STEPS = 1000;

/**
 * Executes the dialplan for one channel: priority by priority, each application awaited, until
 * the channel hangs up or runs off the end (then it is hung up, as operators expect).
 *
 * Special extensions, as in the original: a jump to an extension the context lacks goes to `i`
 * (with INVALID_EXTEN set) when the context has one; WaitExten/Background use `i` and `t`; when
 * the channel hangs up, the `h` extension of the context it was in runs (hangup handler), with
 * media applications failing quietly since there is no one to hear them.
 */
export class DialplanRunner {
  /** One entry per family of applications (pbx/apps/); drivers and other modules add theirs. */
  readonly #apps = new Map<string, DialplanApplication>([
    ...Object.entries(BUILTIN_APPLICATIONS),
    ...Object.entries(FLOW_APPLICATIONS),
    ...Object.entries(IVR_APPLICATIONS),
    ['messagesend', messageSend],
  ]);
  readonly #dialplan: () => DialplanLookup;
  readonly #text: DialplanText;
  readonly #applications: ApplicationRegistry;
  readonly #playbacks: PlaybackManager;
  readonly #globals: Map<string, string>;
  readonly #log: Logger;
  readonly #running = new Map<string, Promise<void>>();
  #pbx: PbxServices;

  constructor(deps: {
    dialplan: () => DialplanLookup;
    text: DialplanText;
    applications: ApplicationRegistry;
    playbacks: PlaybackManager;
    globals: Map<string, string>;
    log: Logger;
    pbx?: Partial<PbxServices>;
  }) {
    this.#dialplan = deps.dialplan;
    this.#text = deps.text;
    this.#applications = deps.applications;
    this.#playbacks = deps.playbacks;
    this.#globals = deps.globals;
    this.#log = deps.log;
    this.#pbx = this.#services(deps.pbx ?? {});
    for (const [name, fn] of Object.entries({ ...CHANNEL_FUNCTIONS, ...MESSAGE_FUNCTIONS })) this.registerFunction(name, fn);
  }

  #services(partial: Partial<PbxServices>): PbxServices {
    return createPbxServices({
      runApplication: (ctx, name, data) => this.#runApplication(ctx, name, data),
      hasApplication: (name) => this.#apps.has(name.toLowerCase()),
      exists: (context, exten, priority = 1) => this.#dialplan().findPriority(context, exten, priority) !== undefined,
      canMatchMore: (context, exten) => this.#dialplan().canMatchMore?.(context, exten) ?? false,
      findLabel: (context, exten, label) => this.findLabel(context, exten, label),
      ...partial,
    });
  }

  /** The services applications see; core adds its own (media, device states, AstDB) once they exist. */
  get pbx(): PbxServices {
    return this.#pbx;
  }

  attachServices(partial: Partial<PbxServices>): void {
    Object.assign(this.#pbx, partial);
  }

  /** Adds or replaces a dialplan application (drivers register Dial this way). */
  registerApplication(name: string, app: DialplanApplication): void {
    this.#apps.set(name.toLowerCase(), app);
  }

  /** Adds or replaces a dialplan function (upper-case name, as written in `${NAME(args)}`). */
  registerFunction(name: string, fn: DialplanFunction): void {
    this.#pbx.functions.set(name.toUpperCase(), fn);
  }

  /** Unknown applications and functions of the current dialplan, with file and line. */
  check(): DialplanProblem[] {
    const steps = this.#dialplan().steps?.() ?? [];
    return findDialplanProblems(steps, {
      hasApplication: (name) => this.#apps.has(name.toLowerCase()),
      hasFunction: (name) => this.#pbx.functions.has(name.toUpperCase()),
    });
  }

  /** Logs every problem check() finds at warning level; returns how many. */
  checkAndReport(): number {
    const problems = this.check();
    for (const problem of problems) {
      this.#log.warn({ file: problem.file, line: problem.line, context: problem.context, exten: problem.exten }, problem.message);
    }
    return problems.length;
  }

  /** The priority number a label stands for, or undefined when the label does not exist. */
  findLabel(context: string, exten: string, label: string): number | undefined {
    return this.#dialplan().findLabel(context, exten, label)?.priority.priority;
  }

  /** Whether the channel is running the dialplan now (its `h` extension included). */
  isRunning(channelId: string): boolean {
    return this.#running.has(channelId);
  }

  /** Resolves when the channel's dialplan (and its `h` extension) has ended; at once when none runs. */
  whenDone(channelId: string): Promise<void> {
    return this.#running.get(channelId) ?? Promise.resolve();
  }

  /** Runs from a target that may name a label instead of a priority; an unknown label ends the call. */
  runTarget(channel: Channel, target: DialplanTarget): Promise<void> {
    const priority =
      target.label === undefined ? (target.priority ?? 1) : (this.findLabel(target.context, target.exten, target.label) ?? 0);
    return this.run(channel, { context: target.context, exten: target.exten, priority });
  }

  /** Runs until the channel leaves the dialplan; never rejects. */
  run(channel: Channel, start: DialplanLocationRef): Promise<void> {
    const run = this.#run(channel, start);
    this.#running.set(channel.id, run);
    void run.finally(() => {
      if (this.#running.get(channel.id) === run) this.#running.delete(channel.id);
    });
    return run;
  }

  async #run(channel: Channel, start: DialplanLocationRef): Promise<void> {
    const log = this.#log.child({ channel: channel.name });
    const ctx: DialplanAppContext = {
      channel,
      applications: this.#applications,
      playbacks: this.#playbacks,
      globals: this.#globals,
      log,
      sleep: (ms) => sleepUnlessHungUp(channel.hangupSignal, ms),
      location: { ...start },
      pbx: this.#pbx,
    };
    this.#pbx.dtmf.attach(channel.id);
    let location = { ...start };
    let steps = 0;
    try {
      while (!channel.isDestroyed) {
        const step = this.#dialplan().findPriority(location.context, location.exten, location.priority)?.priority;
        if (!step) {
          const invalid = this.#invalidExtension(location);
          if (invalid) {
            channel.setVariable('INVALID_EXTEN', location.exten);
            location = invalid;
            continue;
          }
          log.info({ ...location }, 'no more dialplan; hanging up');
          await channel.hangup(CAUSE_NORMAL_CLEARING);
          break;
        }
        steps += 1;
        if (steps > MAX_STEPS_WITHOUT_WAITING) {
          log.warn({ ...location }, 'dialplan loop detected; hanging up');
          await channel.hangup(CAUSE_NORMAL_CLEARING);
          break;
        }
        ctx.location = { ...location };
        const flow = await this.#execute(ctx, location, step);
        if (flow.kind === 'stop') break;
        location = this.#nextLocation(location, flow);
      }
    } catch (err) {
      if (!channel.isDestroyed) {
        log.error({ err }, 'dialplan application failed; hanging up');
        await channel.hangup(CAUSE_NORMAL_CLEARING);
      }
    }
    this.#pbx.dtmf.detach(channel.id);
    if (channel.isDestroyed) await this.#runHangupExtension(ctx, ctx.location.context, log);
    this.#pbx.gosub.forget(channel.id);
  }

  /** `i` of the context when `exten` does not exist there at all (a jump to a bad extension). */
  #invalidExtension(location: DialplanLocationRef): DialplanLocationRef | undefined {
    const lookup = this.#dialplan();
    if (location.exten === 'i' || lookup.findExtension === undefined) return undefined;
    if (lookup.findExtension(location.context, location.exten) !== undefined) return undefined;
    return lookup.findPriority(location.context, 'i', 1) ? { context: location.context, exten: 'i', priority: 1 } : undefined;
  }

  /** The `h` extension: runs after the hangup, step by step, until it ends or an application fails. */
  async #runHangupExtension(ctx: DialplanAppContext, context: string, log: Logger): Promise<void> {
    if (ctx.location.exten === 'h' || !this.#dialplan().findPriority(context, 'h', 1)) return;
    let location: DialplanLocationRef = { context, exten: 'h', priority: 1 };
    for (let steps = 0; steps < MAX_HANGUP_STEPS; steps++) {
      const step = this.#dialplan().findPriority(location.context, location.exten, location.priority)?.priority;
      if (!step) return;
      ctx.location = { ...location };
      try {
        const flow = await this.#execute(ctx, location, step);
        if (flow.kind === 'stop') return;
        location = this.#nextLocation(location, flow);
      } catch (err) {
        log.debug({ err, ...location }, 'hangup extension ended by a failing application');
        return;
      }
    }
  }

  /** A lookup for `${…}` in the channel's context: functions of the table, then variables and built-ins. */
  #lookup(ctx: DialplanAppContext, location: DialplanLocationRef) {
    const fctx: DialplanFunctionContext = { channel: ctx.channel, location, globals: this.#globals, pbx: this.#pbx, log: ctx.log };
    return (name: string, args?: string): string | undefined => {
      if (args !== undefined) {
        const fn = this.#pbx.functions.get(name.toUpperCase());
        if (fn?.read) return fn.read(fctx, args);
      }
      return channelVariable(ctx.channel, name, args, location, this.#globals);
    };
  }

  /** Expands text in the channel's context (ExecIf, IF() branches written with `${…}`). */
  expandFor(ctx: DialplanAppContext, text: string): string {
    return this.#text.expand(text, this.#lookup(ctx, ctx.location), { warn: (message) => ctx.log.warn(message) });
  }

  async #execute(ctx: DialplanAppContext, location: DialplanLocationRef, step: DialplanPriority): Promise<DialplanFlow> {
    const { channel } = ctx;
    const data = this.#text.expand(step.appData, this.#lookup(ctx, location), {
      warn: (message) => ctx.log.warn({ app: step.app, file: step.file, line: step.line }, message),
    });
    if (!channel.isDestroyed) channel.enterDialplanApp(location, step.app, data);
    const app = this.#apps.get(step.app.toLowerCase());
    if (!app) {
      ctx.log.warn({ app: step.app, file: step.file, line: step.line }, 'unknown dialplan application; hanging up');
      await channel.hangup(CAUSE_NORMAL_CLEARING);
      return { kind: 'stop' };
    }
    const args = data.length > 0 ? this.#text.splitArgs(data) : [];
    return await app(ctx, args);
  }

  /** ExecIf and friends: one application with already expanded argument text. */
  async #runApplication(ctx: DialplanAppContext, name: string, data: string): Promise<DialplanFlow> {
    const app = this.#apps.get(name.toLowerCase());
    if (!app) {
      ctx.log.warn({ app: name }, 'unknown dialplan application');
      return { kind: 'next' };
    }
    return await app(ctx, data.length > 0 ? this.#text.splitArgs(data) : []);
  }

  #nextLocation(current: DialplanLocationRef, flow: Exclude<DialplanFlow, { kind: 'stop' }>): DialplanLocationRef {
    if (flow.kind === 'next') return { ...current, priority: current.priority + 1 };
    const context = flow.context ?? current.context;
    const exten = flow.exten ?? current.exten;
    if (flow.label !== undefined) {
      const found = this.#dialplan().findLabel(context, exten, flow.label);
      // An unknown label leaves the dialplan (priority 0 never exists).
      return { context, exten, priority: found?.priority.priority ?? 0 };
    }
    return { context, exten, priority: flow.priority ?? 1 };
  }
}

function sleepUnlessHungUp(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
