/**
 * PJSIP_HEADER(action,name[,number]) as the original defines it:
 *
 *   read    a header of the request that started an inbound call (`number` picks the nth of
 *           several, from 1; `*` joins them all with commas); on an outbound channel, the headers
 *           added to its INVITE;
 *   add     `Set(PJSIP_HEADER(add,X-Name)=value)` adds a header to the INVITE of an outbound call
 *           not sent yet (Dial's pre-dial handler `b()` is where operators write it);
 *   update  replaces the value of a header added before (the `number`th, from 1), or adds it;
 *   remove  removes headers added before: `name` exactly, `X-*` every name with that prefix, `*`
 *           all of them (PJSIP_HEADER(remove,…) read returns how many went).
 *
 * Only headers added this way can be updated or removed, as in the original: those of the
 * request the driver builds itself (Via, From, Call-ID, …) are never touched.
 */
import type { Channel } from '../../channels/channel.js';
import type { OutgoingHeaders } from '../../drivers/channel-technology.js';
import type { DialplanFunction, DialplanFunctionContext } from '../pbx-services.js';

/** Header names the original refuses to let the dialplan add (the SIP stack owns them). */
const TOKEN = /^[A-Za-z0-9!%'*+._`~-]+$/;

function parseArgs(args: string): { action: string; name: string; number: string } {
  const [action = '', name = '', number = '1'] = args.split(',').map((a) => a.trim());
  return { action: action.toLowerCase(), name, number };
}

function nameMatches(pattern: string, name: string): boolean {
  const lower = name.toLowerCase();
  const wanted = pattern.toLowerCase();
  return wanted.endsWith('*') ? lower.startsWith(wanted.slice(0, -1)) : lower === wanted;
}

function pick(values: string[], number: string): string {
  if (number === '*') return values.join(',');
  const index = Number.parseInt(number, 10);
  return values[(Number.isNaN(index) || index < 1 ? 1 : index) - 1] ?? '';
}

/** The channel's outgoing header list, when it has one that can still change. */
function outgoing(ctx: DialplanFunctionContext, action: string): OutgoingHeaders | undefined {
  const headers = ctx.channel.tech.outgoingHeaders;
  if (headers === undefined) {
    ctx.log.warn({ channel: ctx.channel.name }, `PJSIP_HEADER(${action}) needs an outbound SIP channel; nothing changed`);
    return undefined;
  }
  if (headers.sent) {
    ctx.log.warn({ channel: ctx.channel.name }, `PJSIP_HEADER(${action}): the INVITE is already sent; nothing changed`);
    return undefined;
  }
  return headers;
}

function remove(headers: OutgoingHeaders, pattern: string): number {
  const before = headers.list.length;
  const kept = headers.list.filter(([name]) => !nameMatches(pattern, name));
  headers.list.splice(0, headers.list.length, ...kept);
  return before - kept.length;
}

export const PJSIP_HEADER: DialplanFunction = {
  read: (ctx, args) => {
    const { action, name, number } = parseArgs(args);
    if (action === 'remove') {
      const headers = outgoing(ctx, action);
      return headers === undefined || name === '' ? '0' : String(remove(headers, name));
    }
    if (action !== 'read') {
      ctx.log.warn({ action }, `PJSIP_HEADER(${action}) is written with Set(), not read`);
      return '';
    }
    const tech = ctx.channel.tech;
    if (tech.requestHeaders !== undefined) return pick(tech.requestHeaders(name), number);
    const added = ctx.channel.tech.outgoingHeaders?.list ?? [];
    return pick(
      added.filter(([n]) => nameMatches(name, n)).map(([, value]) => value),
      number,
    );
  },
  write: (ctx, args, value) => {
    const problem = writeOutgoingHeader(ctx.channel, args, value);
    if (problem !== undefined) ctx.log.warn({ channel: ctx.channel.name, args }, problem);
  },
};

/**
 * `PJSIP_HEADER(args)=value` on a channel (the dialplan's Set, or a variable given to the API's
 * originate, as the original allows); returns why nothing changed, if so.
 */
export function writeOutgoingHeader(channel: Channel, args: string, value: string): string | undefined {
  const { action, name, number } = parseArgs(args);
  if (action !== 'add' && action !== 'update' && action !== 'remove')
    return `PJSIP_HEADER(${action}) cannot be set; use add, update or remove`;
  if (name === '' || (action !== 'remove' && !TOKEN.test(name))) return `PJSIP_HEADER(${action}) needs a header name`;
  if (/[\r\n]/.test(value)) return 'PJSIP_HEADER: a header value cannot contain a line break; nothing changed';
  const headers = channel.tech.outgoingHeaders;
  if (headers === undefined) return `PJSIP_HEADER(${action}) needs an outbound SIP channel; nothing changed`;
  if (headers.sent) return `PJSIP_HEADER(${action}): the INVITE is already sent; nothing changed`;
  if (action === 'remove') {
    remove(headers, name);
    return undefined;
  }
  if (action === 'update') {
    const index = Number.parseInt(number, 10);
    const matching = headers.list.filter(([n]) => nameMatches(name, n));
    const target = matching[(Number.isNaN(index) || index < 1 ? 1 : index) - 1];
    if (target !== undefined) {
      target[1] = value;
      return undefined;
    }
  }
  headers.list.push([name, value]);
  return undefined;
}
