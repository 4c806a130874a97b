/**
 * What VoiceMailMain says before a message: the original's default envelope format
 * `'vm-received' q 'digits/at' IMp` — "received today / yesterday / <weekday> (within the week) /
 * <weekday> <month> <day> (older; the year too when it is not this year) at <hour> <minute> <am|pm>",
 * then "from <caller's number>". Times are the server's local time.
 */
import type { VoicemailMessage } from './voicemail-store.js';

const DAY_MS = 86_400_000;

/** `q`: today, yesterday, the weekday within the last week, else weekday, month, day (and year). */
export function sayWhichDay(when: Date, now: Date): string[] {
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const t = when.getTime();
  if (t >= startOfToday) return ['sound:digits/today'];
  if (t >= startOfToday - DAY_MS) return ['sound:digits/yesterday'];
  const weekday = `sound:digits/day-${when.getDay()}`;
  if (t >= startOfToday - 6 * DAY_MS) return [weekday];
  const uris = [weekday, `sound:digits/mon-${when.getMonth()}`, `number:${when.getDate()}`];
  if (when.getFullYear() !== now.getFullYear()) uris.push(`number:${when.getFullYear()}`);
  return uris;
}

/** `IMp`: the hour on a 12-hour clock, the minute ("o'clock" on the hour, "oh five"), then AM or PM. */
export function sayTimeOfDay(when: Date): string[] {
  const hours = when.getHours();
  const minutes = when.getMinutes();
  const uris = [`number:${hours % 12 === 0 ? 12 : hours % 12}`];
  if (minutes === 0) uris.push('sound:digits/oclock');
  else if (minutes < 10) uris.push('sound:digits/oh', `number:${minutes}`);
  else uris.push(`number:${minutes}`);
  uris.push(hours < 12 ? 'sound:digits/a-m' : 'sound:digits/p-m');
  return uris;
}

export function envelope(message: Pick<VoicemailMessage, 'origTime' | 'callerId'>, now: Date = new Date()): string[] {
  const when = new Date(message.origTime * 1000);
  const uris = ['sound:vm-received', ...sayWhichDay(when, now), 'sound:digits/at', ...sayTimeOfDay(when), 'sound:vm-from'];
  const number = /<([0-9*#]+)>/.exec(message.callerId)?.[1];
  uris.push(number ? `digits:${number}` : 'sound:vm-unknown-caller');
  return uris;
}
