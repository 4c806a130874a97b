/**
 * Formats a date the way the control API shows dates: `2025-03-17T08:32:35.709-0600`.
 * Under load many events fall in one millisecond, so the last answer is kept (per instant and offset).
 */
export function formatWireDate(date: Date): string {
  const ms = date.getTime();
  const offsetMinutes = -date.getTimezoneOffset();
  if (ms === lastFormatted.ms && offsetMinutes === lastFormatted.offsetMinutes) return lastFormatted.text;
  const pad = (n: number, width = 2) => String(Math.trunc(Math.abs(n))).padStart(width, '0');
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const text =
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}` +
    `${sign}${pad(offsetMinutes / 60)}${pad(offsetMinutes % 60)}`;
  lastFormatted.ms = ms;
  lastFormatted.offsetMinutes = offsetMinutes;
  lastFormatted.text = text;
  return text;
}

const lastFormatted = { ms: Number.NaN, offsetMinutes: 0, text: '' };

/** A clock that tests can replace. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
