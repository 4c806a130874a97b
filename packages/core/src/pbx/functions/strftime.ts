/**
 * `STRFTIME([epoch][,timezone[,format]])` and the `%` conversions of C's strftime that dialplans
 * use: %Y %y %m %d %e %H %I %M %S %p %a %A %b %B %j %s %Z %z %n %t %%. Default format
 * `%c`-like `%a %b %e %H:%M:%S %Y`.
 */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
  offsetMinutes: number;
  zone: string;
}

function fieldsOf(date: Date, timezone: string | undefined): Fields {
  if (timezone === undefined) {
    return {
      year: date.getFullYear(),
      month: date.getMonth(),
      day: date.getDate(),
      hour: date.getHours(),
      minute: date.getMinutes(),
      second: date.getSeconds(),
      weekday: date.getDay(),
      offsetMinutes: -date.getTimezoneOffset(),
      zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    };
  }
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hour12: false,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'short',
    timeZoneName: 'short',
  }).formatToParts(date);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const fields = {
    year: Number(get('year')),
    month: Number(get('month')) - 1,
    day: Number(get('day')),
    hour: Number(get('hour')) % 24,
    minute: Number(get('minute')),
    second: Number(get('second')),
    weekday: DAYS.findIndex((d) => d.startsWith(get('weekday'))),
    zone: get('timeZoneName'),
    offsetMinutes: 0,
  };
  const asUtc = Date.UTC(fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second);
  fields.offsetMinutes = Math.round((asUtc - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
  return fields;
}

const pad = (n: number, width = 2, fill = '0') => String(n).padStart(width, fill);

export function strftime(date: Date, format: string, timezone?: string): string {
  const f = fieldsOf(date, timezone);
  const dayOfYear = Math.floor((Date.UTC(f.year, f.month, f.day) - Date.UTC(f.year, 0, 1)) / 86_400_000) + 1;
  const conversions: Record<string, () => string> = {
    Y: () => String(f.year),
    y: () => pad(f.year % 100),
    m: () => pad(f.month + 1),
    d: () => pad(f.day),
    e: () => pad(f.day, 2, ' '),
    H: () => pad(f.hour),
    I: () => pad(f.hour % 12 === 0 ? 12 : f.hour % 12),
    M: () => pad(f.minute),
    S: () => pad(f.second),
    p: () => (f.hour < 12 ? 'AM' : 'PM'),
    a: () => DAYS[f.weekday].slice(0, 3),
    A: () => DAYS[f.weekday],
    b: () => MONTHS[f.month].slice(0, 3),
    h: () => MONTHS[f.month].slice(0, 3),
    B: () => MONTHS[f.month],
    j: () => pad(dayOfYear, 3),
    u: () => String(f.weekday === 0 ? 7 : f.weekday),
    w: () => String(f.weekday),
    s: () => String(Math.floor(date.getTime() / 1000)),
    Z: () => f.zone,
    z: () => `${f.offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(f.offsetMinutes) / 60))}${pad(Math.abs(f.offsetMinutes) % 60)}`,
    T: () => `${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`,
    D: () => `${pad(f.month + 1)}/${pad(f.day)}/${pad(f.year % 100)}`,
    F: () => `${f.year}-${pad(f.month + 1)}-${pad(f.day)}`,
    n: () => '\n',
    t: () => '\t',
    '%': () => '%',
  };
  return format.replace(/%([A-Za-z%])/g, (whole, c: string) => conversions[c]?.() ?? whole);
}

export const DEFAULT_STRFTIME_FORMAT = '%a %b %e %H:%M:%S %Y';
