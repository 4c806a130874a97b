/**
 * PJSIP_HEADER(read,name[,number]): a header of the request that started an inbound call, as the
 * original reads it (`number` picks the nth of several, from 1; `*` joins them all with commas).
 * The add/remove actions change headers of requests the server sends; they are refused with a
 * warning here until outbound calls carry extra headers.
 */
import type { Channel } from '../../channels/channel.js';
import type { DialplanFunction } from '../pbx-services.js';

const readers = new WeakMap<Channel, (name: string) => string[]>();

/** Keeps the header reader of a channel's initial request (core calls it for inbound calls). */
export function keepRequestHeaders(channel: Channel, read: (name: string) => string[]): void {
  readers.set(channel, read);
}

export const PJSIP_HEADER: DialplanFunction = {
  read: (ctx, args) => {
    const [action = '', name = '', number = '1'] = args.split(',').map((a) => a.trim());
    if (action.toLowerCase() !== 'read') {
      ctx.log.warn({ action }, `PJSIP_HEADER(${action}) is not supported yet; only read`);
      return '';
    }
    const values = readers.get(ctx.channel)?.(name) ?? [];
    if (number === '*') return values.join(',');
    const index = Number.parseInt(number, 10);
    return values[(Number.isNaN(index) || index < 1 ? 1 : index) - 1] ?? '';
  },
  write: (ctx, args) => {
    ctx.log.warn({ args }, 'PJSIP_HEADER(add|update|remove) is not supported yet; the header is not changed');
  },
};
