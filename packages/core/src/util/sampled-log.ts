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
  readonly #kinds: Map<string, KindState>;

  constructor(log: Logger, clock: Pick<Clock, 'now'>, intervalMs = DEFAULT_LOG_SAMPLE_INTERVAL_MS, kinds = new Map<string, KindState>()) {
    this.#log = log;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#kinds = kinds;
  }

  /** The same counters, writing through another logger (a child with more bindings). */
  through(log: Logger): SampledLog {
    return new SampledLog(log, this.#clock, this.#intervalMs, this.#kinds);
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

/**
 * A logger that writes the lines named in `messages` (those about remote input: a refused call, a
 * failed login) sampled per message text, and every other line as `log` would. For code that logs
 * per request and cannot itself tell remote input from the rest.
 */
export function sampleMessages(
  log: Logger,
  clock: Pick<Clock, 'now'>,
  messages: readonly string[],
  intervalMs = DEFAULT_LOG_SAMPLE_INTERVAL_MS,
): Logger {
  return sampledMessagesLogger(log, new SampledLog(log, clock, intervalMs), new Set(messages));
}

/** Children share their parent's counters: one refused call per interval is written, not one per call. */
function sampledMessagesLogger(log: Logger, sampled: SampledLog, names: ReadonlySet<string>): Logger {
  const at =
    (level: SampledLevel) =>
    (obj: object | string, msg?: string): void => {
      if (typeof obj === 'object' && msg !== undefined && names.has(msg)) {
        sampled.write(level, msg, obj as Record<string, unknown>, msg);
        return;
      }
      log[level](obj, msg);
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (bindings) => {
      const child = log.child(bindings);
      return sampledMessagesLogger(child, sampled.through(child), names);
    },
  };
}
