/**
 * DTMF strings of the sendDTMF operation: digits 0-9, A-D, `*` and `#` (RFC 4733 §3.2 events 0-15),
 * with `,` meaning a pause, as in the reference and the dialplan's SendDTMF.
 */
import { invalidArgument } from '../errors.js';

/** The pause one `,` stands for. */
export const DTMF_PAUSE_MS = 500;

export interface DtmfTiming {
  /** Milliseconds of delay before the first digit. */
  beforeMs: number;
  /** Milliseconds between digits. */
  betweenMs: number;
  /** Milliseconds each digit lasts. */
  durationMs: number;
  /** Milliseconds of delay after the last digit. */
  afterMs: number;
}

export const DEFAULT_DTMF_TIMING: DtmfTiming = { beforeMs: 0, betweenMs: 100, durationMs: 100, afterMs: 0 };

/** One step of sending: a run of digits sent back to back, or a pause. */
export type DtmfStep = { kind: 'digits'; digits: string } | { kind: 'pause'; ms: number };

const DIGIT = /^[0-9A-D*#]$/;

/** Validates `dtmf` and splits it at the pauses; lower-case a-d are taken as A-D. */
export function parseDtmf(dtmf: string | undefined): DtmfStep[] {
  if (dtmf === undefined || dtmf.length === 0) throw invalidArgument('DTMF is required');
  const steps: DtmfStep[] = [];
  let run = '';
  for (const raw of dtmf) {
    const c = raw.toUpperCase();
    if (c === ',') {
      if (run) steps.push({ kind: 'digits', digits: run });
      run = '';
      steps.push({ kind: 'pause', ms: DTMF_PAUSE_MS });
      continue;
    }
    if (!DIGIT.test(c)) throw invalidArgument(`Invalid DTMF digit '${raw}'; use 0-9, A-D, *, # and , for a pause`);
    run += c;
  }
  if (run) steps.push({ kind: 'digits', digits: run });
  return steps;
}

export function checkDtmfTiming(timing: DtmfTiming): void {
  for (const [name, value] of Object.entries(timing)) {
    if (!Number.isInteger(value) || value < 0) throw invalidArgument(`DTMF ${name} must be a non-negative integer`);
  }
  if (timing.durationMs === 0) throw invalidArgument('DTMF duration must be positive');
}
