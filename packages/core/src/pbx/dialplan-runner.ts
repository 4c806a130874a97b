import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import { CAUSE_NORMAL_CLEARING } from '../channels/hangup-causes.js';
import type { DialplanPriority } from '../config/types.js';
import type { PlaybackManager } from '../playback/playback-manager.js';
import type { Logger } from '../util/logger.js';
import { BUILTIN_APPLICATIONS } from './builtin-apps.js';
import type { DialplanAppContext, DialplanApplication, DialplanFlow } from './dialplan-app.js';
import { channelVariable } from './channel-variables.js';

/** The parts of the dialplan the runner reads (implemented by dialplan/Dialplan). */
export interface DialplanLookup {
  findPriority(context: string, exten: string, priority: number): { priority: DialplanPriority } | undefined;
  findLabel(context: string, exten: string, label: string): { priority: DialplanPriority } | undefined;
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

/**
 * Executes the dialplan for one channel: priority by priority, each application awaited, until
 * the channel hangs up or runs off the end (then it is hung up, as operators expect).
 */
export class DialplanRunner {
  readonly #apps = new Map<string, DialplanApplication>(Object.entries(BUILTIN_APPLICATIONS));
  readonly #dialplan: () => DialplanLookup;
  readonly #text: DialplanText;
  readonly #applications: ApplicationRegistry;
  readonly #playbacks: PlaybackManager;
  readonly #globals: Map<string, string>;
  readonly #log: Logger;
  /** channel id → how to send its running dialplan elsewhere (redirect). */
  readonly #redirects = new Map<string, (target: DialplanLocationRef) => void>();

  constructor(deps: {
    dialplan: () => DialplanLookup;
    text: DialplanText;
    applications: ApplicationRegistry;
    playbacks: PlaybackManager;
    globals: Map<string, string>;
    log: Logger;
  }) {
    this.#dialplan = deps.dialplan;
    this.#text = deps.text;
    this.#applications = deps.applications;
    this.#playbacks = deps.playbacks;
    this.#globals = deps.globals;
    this.#log = deps.log;
  }

  /** Adds or replaces a dialplan application (drivers register Dial this way). */
  registerApplication(name: string, app: DialplanApplication): void {
    this.#apps.set(name.toLowerCase(), app);
  }

  /** The priority number a label stands for, or undefined when the label does not exist. */
  findLabel(context: string, exten: string, label: string): number | undefined {
    return this.#dialplan().findLabel(context, exten, label)?.priority.priority;
  }

  /** Runs from a target that may name a label instead of a priority; an unknown label ends the call. */
  runTarget(channel: Channel, target: DialplanTarget): Promise<void> {
    const priority =
      target.label === undefined ? (target.priority ?? 1) : (this.findLabel(target.context, target.exten, target.label) ?? 0);
    return this.run(channel, { context: target.context, exten: target.exten, priority });
  }

  /** True when the dialplan has this priority. */
  exists(context: string, exten: string, priority: number): boolean {
    return this.#dialplan().findPriority(context, exten, priority) !== undefined;
  }

  /**
   * Runs one dialplan application on a channel outside any extension (the manager's Originate
   * with Application/Data), then hangs the channel up as the original does.
   */
  async runApplication(channel: Channel, app: string, data: string): Promise<void> {
    const location = { context: channel.dialplan.context, exten: channel.dialplan.exten, priority: 1 };
    const step: DialplanPriority = { priority: 1, app, appData: data, file: '(originate)', line: 0 };
    const ctx: DialplanAppContext = {
      channel,
      applications: this.#applications,
      playbacks: this.#playbacks,
      globals: this.#globals,
      log: this.#log.child({ channel: channel.name }),
      sleep: (ms) => sleepUnlessHungUp(channel.hangupSignal, ms),
    };
    try {
      await this.#execute(ctx, location, step);
    } catch (err) {
      if (!channel.isDestroyed) ctx.log.error({ err, app }, 'originated application failed');
    }
    if (!channel.isDestroyed) await channel.hangup(CAUSE_NORMAL_CLEARING);
  }

  /** True when a dialplan application of this name exists. */
  hasApplication(name: string): boolean {
    return this.#apps.has(name.toLowerCase());
  }

  /** True while the channel runs the dialplan here. */
  isRunning(channel: Channel): boolean {
    return this.#redirects.has(channel.id);
  }

  /**
   * Sends a channel that runs the dialplan to another place at once (the manager's Redirect):
   * the application it is in is abandoned, its result ignored. False when it runs no dialplan.
   */
  redirect(channel: Channel, target: DialplanLocationRef): boolean {
    const jump = this.#redirects.get(channel.id);
    if (!jump) return false;
    jump({ ...target });
    return true;
  }

  /** Runs until the channel leaves the dialplan; never rejects. */
  async run(channel: Channel, start: DialplanLocationRef): Promise<void> {
    let jump: (target: DialplanLocationRef) => void = () => undefined;
    const redirect = (target: DialplanLocationRef) => jump(target);
    this.#redirects.set(channel.id, redirect);
    try {
      await this.#runSteps(channel, start, (next) => {
        jump = next;
      });
    } finally {
      if (this.#redirects.get(channel.id) === redirect) this.#redirects.delete(channel.id);
    }
  }

  async #runSteps(
    channel: Channel,
    start: DialplanLocationRef,
    onRedirect: (jump: (target: DialplanLocationRef) => void) => void,
  ): Promise<void> {
    const log = this.#log.child({ channel: channel.name });
    const ctx: DialplanAppContext = {
      channel,
      applications: this.#applications,
      playbacks: this.#playbacks,
      globals: this.#globals,
      log,
      sleep: (ms) => sleepUnlessHungUp(channel.hangupSignal, ms),
    };
    let location = { ...start };
    let steps = 0;
    try {
      while (!channel.isDestroyed) {
        const step = this.#dialplan().findPriority(location.context, location.exten, location.priority)?.priority;
        if (!step) {
          log.info({ ...location }, 'no more dialplan; hanging up');
          await channel.hangup(CAUSE_NORMAL_CLEARING);
          return;
        }
        steps += 1;
        if (steps > MAX_STEPS_WITHOUT_WAITING) {
          log.warn({ ...location }, 'dialplan loop detected; hanging up');
          await channel.hangup(CAUSE_NORMAL_CLEARING);
          return;
        }
        const redirected = new Promise<DialplanLocationRef>((resolve) => onRedirect(resolve));
        const execution = this.#execute(ctx, location, step);
        // An application abandoned by a redirect may still fail later (a hangup): nobody waits for it.
        execution.catch(() => undefined);
        const outcome = await Promise.race([
          execution.then((flow) => ({ flow, target: undefined })),
          redirected.then((target) => ({ flow: undefined, target })),
        ]);
        if (outcome.target !== undefined) {
          steps = 0;
          location = outcome.target;
          continue;
        }
        const flow = outcome.flow;
        if (flow.kind === 'stop') return;
        location = this.#nextLocation(location, flow);
      }
    } catch (err) {
      if (!channel.isDestroyed) {
        log.error({ err }, 'dialplan application failed; hanging up');
        await channel.hangup(CAUSE_NORMAL_CLEARING);
      }
    }
  }

  async #execute(ctx: DialplanAppContext, location: DialplanLocationRef, step: DialplanPriority): Promise<DialplanFlow> {
    const { channel } = ctx;
    const lookup = (name: string, args?: string) => channelVariable(channel, name, args, location, this.#globals);
    const data = this.#text.expand(step.appData, lookup, { warn: (message) => ctx.log.warn({ app: step.app }, message) });
    channel.enterDialplanApp(location, step.app, data);
    const app = this.#apps.get(step.app.toLowerCase());
    if (!app) {
      ctx.log.warn({ app: step.app, file: step.file, line: step.line }, 'unknown dialplan application; hanging up');
      await channel.hangup(CAUSE_NORMAL_CLEARING);
      return { kind: 'stop' };
    }
    const args = data.length > 0 ? this.#text.splitArgs(data) : [];
    return await app(ctx, args);
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
