/**
 * The worker side of the protocol: owns the worker's legs, answers each request exactly once, and
 * runs the playback tick. It talks through a `post` function, so it can be driven without a thread.
 *
 * Ordering rule (see protocol.ts): notifications raised while a command is being handled are held
 * back and posted right after that command's reply.
 */
import { InvalidArgumentError, MediaError, legNotFound, mediaErrorToWire } from '../errors.js';
import type { LogLevel } from '../logger.js';
import type { CommandResults, CommandType, MainToWorker, WorkerCommand, WorkerNotification, WorkerToMain } from '../protocol.js';
import { type LegHost, RtpLeg } from './rtp-leg.js';

/** How often the worker looks for due packets. Packets leave at most this late; the schedule never drifts. */
export const TICK_MS = 5;

export class WorkerHost implements LegHost {
  readonly #post: (message: WorkerToMain) => void;
  readonly #workerIndex: number;
  readonly #now: () => number;
  readonly #legs = new Map<string, RtpLeg>();
  /** Legs with a playback under way; the tick runs only while this is non-empty. */
  readonly #ticking = new Set<RtpLeg>();
  #timer: NodeJS.Timeout | null = null;
  /** Notifications raised during the synchronous part of a command, posted after its reply. */
  #held: WorkerNotification[] | null = null;

  constructor(post: (message: WorkerToMain) => void, workerIndex: number, now: () => number = () => performance.now()) {
    this.#post = post;
    this.#workerIndex = workerIndex;
    this.#now = now;
  }

  // ── LegHost ──────────────────────────────────────────────────────────────────────────────

  notify(notification: WorkerNotification): void {
    if (this.#held !== null) this.#held.push(notification);
    else this.#post({ kind: 'notification', notification });
  }

  log(level: LogLevel, fields: Record<string, unknown>, msg: string): void {
    this.#post({ kind: 'log', level, fields, msg });
  }

  now(): number {
    return this.#now();
  }

  wantTicks(leg: RtpLeg): void {
    this.#ticking.add(leg);
    if (this.#timer === null) this.#timer = setInterval(() => this.#tick(), TICK_MS);
  }

  // ── requests ─────────────────────────────────────────────────────────────────────────────

  ready(): void {
    this.#post({ kind: 'ready', workerIndex: this.#workerIndex });
  }

  receive(message: MainToWorker): void {
    const { id, command } = message;
    const succeed = (result: CommandResults[CommandType], held: WorkerNotification[]): void => {
      this.#post({ kind: 'reply', id, ok: true, result });
      this.#flush(held);
      if (command.type === 'close') this.#post({ kind: 'closed' });
    };
    const fail = (error: unknown, held: WorkerNotification[]): void => {
      if (!(error instanceof MediaError)) {
        this.log('error', { command: command.type, err: error instanceof Error ? error.stack : String(error) }, 'media command failed');
      }
      this.#post({ kind: 'reply', id, ok: false, error: mediaErrorToWire(error) });
      this.#flush(held);
    };

    const held: WorkerNotification[] = [];
    this.#held = held;
    let outcome: CommandResults[CommandType] | Promise<CommandResults[CommandType]>;
    try {
      outcome = this.#execute(command);
    } catch (error) {
      this.#held = null;
      fail(error, held);
      return;
    }
    this.#held = null;
    // A synchronous command is answered at once; an asynchronous one (binding a socket) when it
    // settles. Either way its held notifications follow its reply.
    if (outcome instanceof Promise) {
      outcome.then(
        (result) => succeed(result, held),
        (error: unknown) => fail(error, held),
      );
    } else {
      succeed(outcome, held);
    }
  }

  #flush(held: WorkerNotification[]): void {
    for (const notification of held) this.#post({ kind: 'notification', notification });
  }

  #leg(legId: string): RtpLeg {
    const leg = this.#legs.get(legId);
    if (leg === undefined) throw legNotFound(legId);
    return leg;
  }

  #execute(command: WorkerCommand): CommandResults[CommandType] | Promise<CommandResults[CommandType]> {
    switch (command.type) {
      case 'createLeg':
        return this.#createLeg(command.legId, command.bindAddress, command.port);
      case 'setLegRemote':
        // The engine validated the remote before sending it (validate.ts).
        this.#leg(command.legId).setRemote(command.remote);
        return null;
      case 'destroyLeg': {
        const leg = this.#leg(command.legId);
        this.#legs.delete(command.legId);
        this.#ticking.delete(leg);
        leg.close();
        this.log('debug', { legId: leg.id, port: leg.localPort, counters: leg.counters }, 'RTP leg destroyed');
        return null;
      }
      case 'playFile':
        this.#leg(command.legId).play(command.playbackId, command.file, command.offsetMs);
        return null;
      case 'stopPlayback':
        this.#leg(command.legId).stopPlayback(command.playbackId);
        return null;
      case 'getCounters':
        return this.#leg(command.legId).counters;
      case 'close':
        this.#closeAll();
        return null;
    }
  }

  async #createLeg(legId: string, bindAddress: string, port: number): Promise<CommandResults['createLeg']> {
    if (this.#legs.has(legId)) throw new InvalidArgumentError(`media leg ${legId} already exists`);
    const leg = await RtpLeg.open(legId, bindAddress, port, this);
    this.#legs.set(legId, leg);
    this.log('debug', { legId, address: leg.localAddress, port: leg.localPort }, 'RTP leg created');
    return { localAddress: leg.localAddress, localPort: leg.localPort };
  }

  #closeAll(): void {
    for (const leg of this.#legs.values()) leg.close();
    this.#legs.clear();
    this.#ticking.clear();
    this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  // ── tick ─────────────────────────────────────────────────────────────────────────────────

  #tick(): void {
    const now = this.#now();
    for (const leg of this.#ticking) {
      try {
        leg.tick(now);
      } catch (error) {
        // A bug in one leg's playback must not stop the others: fail that leg alone.
        const message = error instanceof Error ? error.message : String(error);
        this.log('error', { legId: leg.id, err: error instanceof Error ? error.stack : message }, 'media leg tick failed');
        this.#ticking.delete(leg);
        leg.failPlayback(message);
        this.notify({ type: 'legFailed', legId: leg.id, error: `playback failed: ${message}` });
        continue;
      }
      if (!leg.hasActivePlayback) this.#ticking.delete(leg);
    }
    if (this.#ticking.size === 0) this.#stopTimer();
  }
}
