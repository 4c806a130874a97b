/**
 * Penalty rules of queuerules.conf, as the original reads them:
 *
 *   [rulename]
 *   penaltychange => <seconds>,<max_penalty>[,<min_penalty>]
 *
 * Once a caller has waited `seconds`, its penalty range changes: a value with a sign (`+2`, `-1`)
 * moves the current limit, a plain number replaces it. A member whose penalty is outside the
 * caller's range (above the maximum, below the minimum) is not rung for that caller. The range
 * starts from the channel's QUEUE_MAX_PENALTY and QUEUE_MIN_PENALTY (unset: no limit); the rule
 * is Queue()'s rule argument, else the queue's `defaultrule`.
 */
import { resolve } from 'node:path';
import { readIniFile } from '../../../config/ini-file.js';
import { warnUnsupported } from '../../../config/option-table.js';
import { invalid } from '../../../config/values.js';
import type { Logger } from '../../../util/logger.js';

export const QUEUE_RULES_CONFIG_FILE = 'queuerules.conf';

/** One limit change: relative (`+2`, `-1`) or absolute. */
export interface PenaltyChange {
  relative: boolean;
  value: number;
}

export interface PenaltyStep {
  afterSeconds: number;
  max: PenaltyChange;
  min?: PenaltyChange;
}

/** A caller's penalty limits; undefined: no limit on that side. */
export interface PenaltyRange {
  max?: number;
  min?: number;
}

export type PenaltyRules = Map<string, PenaltyStep[]>;

function parseChange(text: string): PenaltyChange {
  const value = text.trim();
  if (!/^[+-]?\d+$/.test(value)) throw new Error(`'${text}' is not a penalty (a number, or +n / -n to move it)`);
  return { relative: /^[+-]/.test(value), value: Number(value) };
}

export function parsePenaltyChange(text: string): PenaltyStep {
  const [seconds = '', max = '', min = ''] = text.split(',').map((v) => v.trim());
  if (!/^\d+$/.test(seconds)) throw new Error(`'${seconds}' is not a number of seconds`);
  const step: PenaltyStep = { afterSeconds: Number(seconds), max: parseChange(max) };
  if (min !== '') step.min = parseChange(min);
  return step;
}

export function readQueueRules(confDir: string, log: Logger): PenaltyRules {
  const rules: PenaltyRules = new Map();
  const doc = readIniFile(resolve(confDir, QUEUE_RULES_CONFIG_FILE));
  if (doc === undefined) return rules;
  for (const section of doc.sections) {
    if (section.isTemplate || section.name.toLowerCase() === 'general') continue;
    const steps: PenaltyStep[] = [];
    for (const option of section.options) {
      if (option.key !== 'penaltychange') {
        warnUnsupported(log, option, section.name);
        continue;
      }
      try {
        steps.push(parsePenaltyChange(option.value));
      } catch (err) {
        throw invalid(option, err instanceof Error ? err.message : String(err));
      }
    }
    // The original keeps a rule's steps in time order whatever order the file lists them in.
    rules.set(
      section.name,
      steps.sort((a, b) => a.afterSeconds - b.afterSeconds),
    );
  }
  return rules;
}

function apply(current: number | undefined, change: PenaltyChange): number | undefined {
  if (!change.relative) return Math.max(0, change.value);
  if (current === undefined) return undefined;
  return Math.max(0, current + change.value);
}

/** The caller's range after waiting `waitedSeconds`: every step due so far applied in order. */
export function penaltyRangeAt(steps: readonly PenaltyStep[], waitedSeconds: number, initial: PenaltyRange): PenaltyRange {
  let range = { ...initial };
  for (const step of steps) {
    if (step.afterSeconds > waitedSeconds) break;
    range = { max: apply(range.max, step.max), min: step.min === undefined ? range.min : apply(range.min, step.min) };
  }
  return range;
}

export function withinRange(penalty: number, range: PenaltyRange): boolean {
  return (range.max === undefined || penalty <= range.max) && (range.min === undefined || penalty >= range.min);
}

/** QUEUE_MAX_PENALTY / QUEUE_MIN_PENALTY as the channel has them (empty or negative: no limit). */
export function initialRange(variable: (name: string) => string | undefined): PenaltyRange {
  const read = (name: string) => {
    const text = variable(name)?.trim() ?? '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  };
  return { max: read('QUEUE_MAX_PENALTY'), min: read('QUEUE_MIN_PENALTY') };
}
