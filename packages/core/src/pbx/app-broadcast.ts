/**
 * AppBroadcast([timeout][,app_filter][,args][,notify_claimed]) — alias StasisBroadcast, as in the
 * reference's dialplan — offers the channel to every registered control application (or those
 * whose names match the regular expression `app_filter`) with CallBroadcast, waits up to `timeout`
 * milliseconds (default 500, at most 60000) for one to claim it (`POST /events/claim`), and hands
 * it to the winner as App(winner, args…) would (`args` are colon-separated). STASISSTATUS becomes
 * SUCCESS, FAILED, or TIMEOUT when nobody claimed the channel; the dialplan then goes on.
 */
import type { CallBroadcasts } from '../apps/call-broadcast.js';
import type { DialplanApplication } from './dialplan-app.js';

export const BROADCAST_APPLICATION_NAMES = ['AppBroadcast', 'StasisBroadcast'] as const;

const DEFAULT_TIMEOUT_MS = 500;
const MAX_TIMEOUT_MS = 60_000;
const TRUE_WORDS = /^(yes|true|y|t|1|on)$/i;

export function createBroadcastApplication(broadcasts: CallBroadcasts): DialplanApplication {
  return async ({ channel, applications, log, sleep }, [timeout = '', filter = '', args = '', notifyClaimed = '']) => {
    channel.setVariable('STASISSTATUS', '');
    let timeoutMs = DEFAULT_TIMEOUT_MS;
    if (timeout.trim() !== '') {
      const parsed = Number(timeout.trim());
      if (Number.isInteger(parsed) && parsed >= 0 && parsed <= MAX_TIMEOUT_MS) timeoutMs = parsed;
      else log.warn({ timeout }, `AppBroadcast timeout must be 0-${MAX_TIMEOUT_MS} ms; using ${DEFAULT_TIMEOUT_MS}`);
    }
    let pattern: RegExp | undefined;
    try {
      pattern = filter.trim() === '' ? undefined : new RegExp(filter.trim());
    } catch {
      log.warn({ filter }, 'AppBroadcast app_filter is not a valid regular expression');
      channel.setVariable('STASISSTATUS', 'FAILED');
      return { kind: 'next' };
    }
    const claimed = broadcasts.broadcast(channel, {
      ...(pattern ? { filter: pattern } : {}),
      notifyClaimed: TRUE_WORDS.test(notifyClaimed.trim()),
    });
    try {
      const winner = await Promise.race([claimed, sleep(timeoutMs).then(() => undefined)]);
      if (winner === undefined) {
        log.info({ channel: channel.name, timeoutMs }, 'broadcast channel not claimed in time');
        channel.setVariable('STASISSTATUS', 'TIMEOUT');
        return { kind: 'next' };
      }
      const exit = await applications.enter(channel, winner, args === '' ? [] : args.split(':'));
      switch (exit.kind) {
        case 'failed':
          channel.setVariable('STASISSTATUS', 'FAILED');
          return { kind: 'next' };
        case 'hangup':
          return { kind: 'stop' };
        case 'continue': {
          channel.setVariable('STASISSTATUS', 'SUCCESS');
          const { kind: _kind, ...target } = exit;
          return Object.keys(target).length > 0 ? { kind: 'goto', ...target } : { kind: 'next' };
        }
      }
    } finally {
      broadcasts.end(channel.id);
    }
  };
}
