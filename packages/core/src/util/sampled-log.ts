/**
 * Logging of what remote peers send. A flood of bad packets or bad logins must not become a flood
 * of log lines (disk, I/O and the operator's attention are what an attacker would then consume):
 * per kind of event, the first occurrence in an interval is written, the rest are only counted,
 * and the count is written with the next occurrence after the interval (`suppressed`).
 * Error objects are reduced to their name and message: a stack trace says nothing about input
 * that was expected to be bad.
 */
import type { Logger } from './logger.js';
import type { Clock } from './time.js';

export type SampledLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** Default interval between two lines of the same kind. */
export const DEFAULT_LOG_SAMPLE_INTERVAL_MS = 10_000;
/** Kinds remembered at most; kinds are a code-chosen set, this only bounds a mistake. */
const MAX_KINDS = 256;

interface KindState {
  lastWritten: number;
  suppressed: number;
}

export class SampledLog {
  readonly #log: Logger;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #intervalMs: number;
  readonly #kinds = new Map<string, KindState>();

  constructor(log: Logger, clock: Pick<Clock, 'now'>, intervalMs = DEFAULT_LOG_SAMPLE_INTERVAL_MS) {
    this.#log = log;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Writes `msg` under `kind` unless one was written within the interval; returns whether it was. */
  write(level: SampledLevel, kind: string, fields: Record<string, unknown>, msg: string): boolean {
    const now = this.#clock.now();
    let state = this.#kinds.get(kind);
    if (state !== undefined && now - state.lastWritten < this.#intervalMs) {
      state.suppressed++;
      return false;
    }
    if (state === undefined) {
      if (this.#kinds.size >= MAX_KINDS) this.#kinds.clear();
      state = { lastWritten: now, suppressed: 0 };
      this.#kinds.set(kind, state);
    }
    const suppressed = state.suppressed;
    state.lastWritten = now;
    state.suppressed = 0;
    const line: Record<string, unknown> = { ...withoutStacks(fields), kind };
    if (suppressed > 0) line.suppressed = suppressed;
    this.#log[level](line, msg);
    return true;
  }

  /** How many events of `kind` were counted but not written since its last line. */
  suppressedCount(kind: string): number {
    return this.#kinds.get(kind)?.suppressed ?? 0;
  }
}

function withoutStacks(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { type: value.name, message: value.message } : value;
  }
  return out;
}
