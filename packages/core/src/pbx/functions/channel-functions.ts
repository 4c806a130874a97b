/**
 * Dialplan functions that read or change a channel, the server or AstDB (the original's names
 * and argument syntax):
 *
 *   CALLERID(num|name|all)      r/w     CONNECTEDLINE(num|name|all)  r/w
 *   CHANNEL(name|uniqueid|language|state|channeltype|endpoint|linkedid)  r (language w)
 *   GLOBAL(name)                r/w     SHARED(name[,channel])       r/w
 *   DB(family/key)              r/w     DB_EXISTS(family/key)        r (sets DB_RESULT)
 *   DB_DELETE(family/key)       r (deletes; the old value)
 *   CUT(varname,delimiter,fields)       STRFTIME([epoch][,tz[,format]])
 *   HANGUPCAUSE([channel])      r       DEVICE_STATE(device)         r
 *   EXTENSION_STATE(exten[@context])  r TIMEOUT(digit|response|absolute)  r/w
 */
import type { Channel } from '../../channels/channel.js';
import { cutText } from '../../dialplan/functions.js';
import type { DialplanFunction, DialplanFunctionContext } from '../pbx-services.js';
import { DEFAULT_STRFTIME_FORMAT, strftime } from './strftime.js';

function callerField(caller: { name: string; number: string }, field: string): string {
  switch (field.trim().toLowerCase()) {
    case 'num':
    case 'number':
      return caller.number;
    case 'name':
      return caller.name;
    case 'all':
      return caller.name ? `"${caller.name}" <${caller.number}>` : caller.number;
    default:
      return '';
  }
}

/** `"Name" <num>` or `num` into parts. */
function parseAll(value: string): { name: string; number: string } {
  const match = /^\s*(?:"([^"]*)"|([^<]*?))\s*<([^>]*)>\s*$/.exec(value);
  if (match) return { name: (match[1] ?? match[2] ?? '').trim(), number: match[3].trim() };
  return { name: '', number: value.trim() };
}

function withField(current: { name: string; number: string }, field: string, value: string): { name: string; number: string } {
  switch (field.trim().toLowerCase()) {
    case 'num':
    case 'number':
      return { ...current, number: value };
    case 'name':
      return { ...current, name: value };
    case 'all':
      return parseAll(value);
    default:
      return current;
  }
}

/** `family/key` → [family, key]; the key may itself hold `/`. */
function dbPath(args: string): [string, string] | undefined {
  const slash = args.indexOf('/');
  if (slash <= 0 || slash === args.length - 1) return undefined;
  return [args.slice(0, slash).trim(), args.slice(slash + 1).trim()];
}

export interface DialplanTimeouts {
  digit: number;
  response: number;
  absolute: number;
}

const timeouts = new WeakMap<Channel, DialplanTimeouts>();

/** TIMEOUT() values of a channel in seconds (digit 5, response 10, absolute 0 = none by default). */
export function channelTimeouts(channel: Channel): DialplanTimeouts {
  let found = timeouts.get(channel);
  if (!found) {
    found = { digit: 5, response: 10, absolute: 0 };
    timeouts.set(channel, found);
  }
  return found;
}

function findChannel(ctx: DialplanFunctionContext, name: string): Channel | undefined {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed === ctx.channel.name) return ctx.channel;
  return ctx.pbx.channelByName?.(trimmed);
}

export const CHANNEL_FUNCTIONS: Record<string, DialplanFunction> = {
  CALLERID: {
    read: (ctx, args) => callerField(ctx.channel.caller, args),
    write: (ctx, args, value) => ctx.channel.setCaller(withField(ctx.channel.caller, args, value)),
  },
  CONNECTEDLINE: {
    read: (ctx, args) => callerField(ctx.channel.connected, args),
    write: (ctx, args, value) => {
      ctx.channel.setConnected(withField(ctx.channel.connected, args.split(',')[0], value));
    },
  },
  CHANNEL: {
    read: (ctx, args) => {
      const c = ctx.channel;
      switch (args.trim().toLowerCase()) {
        case 'name':
          return c.name;
        case 'uniqueid':
          return c.id;
        case 'linkedid':
          return c.getVariable('CDR_LINKEDID') ?? c.id;
        case 'language':
          return c.language;
        case 'state':
          return c.state;
        case 'channeltype':
          return c.technology;
        case 'endpoint':
          return c.endpoint;
        case 'musicclass':
          return c.getVariable('CHANNEL_MUSICCLASS') ?? 'default';
        case 'accountcode':
          return c.getVariable('CDR_ACCOUNTCODE') ?? '';
        default:
          return '';
      }
    },
    write: (ctx, args, value) => {
      switch (args.trim().toLowerCase()) {
        case 'language':
          ctx.channel.language = value;
          return;
        case 'musicclass':
          ctx.channel.setVariable('CHANNEL_MUSICCLASS', value);
          return;
        case 'accountcode':
          ctx.channel.setVariable('CDR_ACCOUNTCODE', value);
          return;
        default:
          ctx.log.warn({ item: args }, `CHANNEL(${args}) cannot be set`);
      }
    },
  },
  GLOBAL: {
    read: (ctx, args) => ctx.globals.get(args.trim()) ?? '',
    write: (ctx, args, value) => {
      ctx.globals.set(args.trim(), value);
    },
  },
  SHARED: {
    read: (ctx, args) => {
      const [name, channelName = ''] = args.split(',');
      const channel = findChannel(ctx, channelName);
      return channel === undefined ? '' : (ctx.pbx.shared.get(channel.id)?.get(name.trim()) ?? '');
    },
    write: (ctx, args, value) => {
      const [name, channelName = ''] = args.split(',');
      const channel = findChannel(ctx, channelName);
      if (channel === undefined) return;
      const vars = ctx.pbx.shared.get(channel.id) ?? new Map<string, string>();
      vars.set(name.trim(), value);
      ctx.pbx.shared.set(channel.id, vars);
    },
  },
  DB: {
    read: (ctx, args) => {
      const path = dbPath(args);
      return path === undefined ? '' : (ctx.pbx.astdb.get(...path) ?? '');
    },
    write: (ctx, args, value) => {
      const path = dbPath(args);
      if (path === undefined) {
        ctx.log.warn({ args }, 'DB() needs family/key');
        return;
      }
      ctx.pbx.astdb.put(path[0], path[1], value);
    },
  },
  DB_EXISTS: {
    read: (ctx, args) => {
      const path = dbPath(args);
      const value = path === undefined ? undefined : ctx.pbx.astdb.get(...path);
      ctx.channel.setVariable('DB_RESULT', value ?? '');
      return value === undefined ? '0' : '1';
    },
  },
  DB_DELETE: {
    read: (ctx, args) => {
      const path = dbPath(args);
      if (path === undefined) return '';
      const value = ctx.pbx.astdb.get(...path);
      if (value !== undefined) ctx.pbx.astdb.delete(...path);
      ctx.channel.setVariable('DB_RESULT', value ?? '');
      return value ?? '';
    },
  },
  CUT: {
    read: (ctx, args) => {
      const [name = '', delimiter = '-', fields = '1'] = args.split(',');
      const value = ctx.channel.getVariable(name.trim()) ?? ctx.globals.get(name.trim()) ?? '';
      return cutText(value, delimiter, fields);
    },
  },
  STRFTIME: {
    read: (ctx, args) => {
      const [epochText = '', timezone = '', ...format] = args.split(',');
      const epoch = Number.parseFloat(epochText);
      const date = epochText.trim() === '' || Number.isNaN(epoch) ? ctx.pbx.now() : new Date(epoch * 1000);
      const formatText = format.length > 0 ? format.join(',') : DEFAULT_STRFTIME_FORMAT;
      try {
        return strftime(date, formatText, timezone.trim() === '' ? undefined : timezone.trim());
      } catch {
        ctx.log.warn({ timezone }, 'STRFTIME: unknown timezone');
        return strftime(date, formatText);
      }
    },
  },
  HANGUPCAUSE: {
    read: (ctx, args) => {
      const channel = findChannel(ctx, args.split(',')[0] ?? '');
      return channel?.hangupCause === undefined ? '' : String(channel.hangupCause);
    },
  },
  DEVICE_STATE: {
    read: (ctx, args) => ctx.pbx.deviceState?.(args.trim()) ?? 'UNKNOWN',
  },
  EXTENSION_STATE: {
    read: (ctx, args) => {
      const [exten, context = ctx.location.context] = args.trim().split('@');
      return ctx.pbx.extensionState?.(context, exten) ?? 'UNKNOWN';
    },
  },
  TIMEOUT: {
    read: (ctx, args) => {
      const which = args.trim().toLowerCase() as keyof DialplanTimeouts;
      const value = channelTimeouts(ctx.channel)[which];
      return value === undefined ? '' : String(value);
    },
    write: (ctx, args, value) => {
      const which = args.trim().toLowerCase();
      const seconds = Number.parseFloat(value);
      if (!['digit', 'response', 'absolute'].includes(which) || Number.isNaN(seconds) || seconds < 0) {
        ctx.log.warn({ args, value }, 'TIMEOUT(): expected digit, response or absolute and a number of seconds');
        return;
      }
      channelTimeouts(ctx.channel)[which as keyof DialplanTimeouts] = seconds;
      if (which === 'absolute') ctx.pbx.setAbsoluteTimeout?.(ctx.channel, seconds);
    },
  },
};
