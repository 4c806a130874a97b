/**
 * Time conditions as the original writes them, for GotoIfTime() and `include => ctx,<condition>`:
 *
 *   <times>,<weekdays>,<mdays>,<months>[,<timezone>]
 *   times     hh:mm-hh:mm (a range that wraps past midnight is allowed) or *
 *   weekdays  sun..sat, a range (mon-fri), a list (mon&wed), or *
 *   mdays     1..31, a range (1-15), a list, or *
 *   months    jan..dec, a range, a list, or *
 *   timezone  an IANA name (Europe/Paris); absent: the server's local time
 *
 * The older `|` separator is accepted as well.
 */

export class TimeConditionError extends Error {
  constructor(text: string, reason: string) {
    super(`time condition '${text}': ${reason}`);
    this.name = 'TimeConditionError';
  }
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export interface TimeCondition {
  /** Minutes of the day [from, to] inclusive; undefined: any time. */
  minutes?: [number, number];
  weekdays?: Set<number>;
  mdays?: Set<number>;
  months?: Set<number>;
  timezone?: string;
}

/** Splits `times,weekdays,mdays,months[,tz]` (or with `|`) out of a list of arguments. */
export function parseTimeCondition(text: string): TimeCondition {
  const parts = text.split(/[|,]/).map((p) => p.trim());
  if (parts.length < 4 || parts.length > 5) throw new TimeConditionError(text, 'expected times,weekdays,mdays,months[,timezone]');
  const [times, weekdays, mdays, months, timezone] = parts;
  const condition: TimeCondition = {};
  if (times !== '*' && times !== '') condition.minutes = parseTimes(text, times);
  if (weekdays !== '*' && weekdays !== '') condition.weekdays = parseSet(weekdays, (v) => nameIndex(text, v, WEEKDAYS), 7);
  if (mdays !== '*' && mdays !== '') condition.mdays = parseSet(mdays, (v) => dayNumber(text, v), 32);
  if (months !== '*' && months !== '') condition.months = parseSet(months, (v) => nameIndex(text, v, MONTHS), 12);
  if (timezone !== undefined && timezone !== '') {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw new TimeConditionError(text, `unknown timezone '${timezone}'`);
    }
    condition.timezone = timezone;
  }
  return condition;
}

function parseTimes(text: string, times: string): [number, number] {
  const match = /^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$/.exec(times);
  if (!match) throw new TimeConditionError(text, `'${times}' is not hh:mm-hh:mm`);
  const [from, to] = [Number(match[1]) * 60 + Number(match[2]), Number(match[3]) * 60 + Number(match[4])];
  if (from > 24 * 60 || to > 24 * 60) throw new TimeConditionError(text, `'${times}' is not a time of day`);
  return [from, to];
}

function nameIndex(text: string, value: string, names: string[]): number {
  const index = names.indexOf(value.toLowerCase().slice(0, 3));
  if (index < 0) throw new TimeConditionError(text, `'${value}' is not one of ${names.join(', ')}`);
  return index;
}

function dayNumber(text: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 31) throw new TimeConditionError(text, `'${value}' is not a day of the month`);
  return n;
}

/** `a`, `a-b` (wrapping past the end), and `&` lists. */
function parseSet(spec: string, index: (value: string) => number, modulo: number): Set<number> {
  const out = new Set<number>();
  for (const item of spec.split('&')) {
    const [fromText, toText] = item.split('-');
    const from = index(fromText.trim());
    if (toText === undefined) {
      out.add(from);
      continue;
    }
    const to = index(toText.trim());
    for (let i = from; ; i = (i + 1) % modulo) {
      out.add(i);
      if (i === to) break;
    }
  }
  return out;
}

/** The wall-clock fields of `date` in `timezone` (or local time). */
function wallClock(date: Date, timezone: string | undefined): { minutes: number; weekday: number; mday: number; month: number } {
  if (timezone === undefined) {
    return { minutes: date.getHours() * 60 + date.getMinutes(), weekday: date.getDay(), mday: date.getDate(), month: date.getMonth() };
  }
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hour12: false,
    hour: '2-digit',
    minute: '2-digit',
    weekday: 'short',
    day: 'numeric',
    month: 'numeric',
  }).formatToParts(date);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const hour = Number(get('hour')) % 24;
  return {
    minutes: hour * 60 + Number(get('minute')),
    weekday: WEEKDAYS.indexOf(get('weekday').toLowerCase().slice(0, 3)),
    mday: Number(get('day')),
    month: Number(get('month')) - 1,
  };
}

export function timeConditionMatches(condition: TimeCondition, date: Date): boolean {
  const now = wallClock(date, condition.timezone);
  if (condition.weekdays && !condition.weekdays.has(now.weekday)) return false;
  if (condition.mdays && !condition.mdays.has(now.mday)) return false;
  if (condition.months && !condition.months.has(now.month)) return false;
  if (condition.minutes) {
    const [from, to] = condition.minutes;
    // The end minute is included (09:00-17:00 still matches at 17:00), as in the original.
    const inside = from <= to ? now.minutes >= from && now.minutes <= to : now.minutes >= from || now.minutes <= to;
    if (!inside) return false;
  }
  return true;
}
