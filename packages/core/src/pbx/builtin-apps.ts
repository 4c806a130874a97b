import { CAUSE_NORMAL_CLEARING, HANGUP_REASONS } from '../channels/hangup-causes.js';
import type { DialplanAppContext, DialplanApplication, DialplanFlow } from './dialplan-app.js';

const next: DialplanFlow = { kind: 'next' };

const answer: DialplanApplication = async ({ channel, sleep }, [delay]) => {
  await channel.answer();
  const ms = Number(delay);
  if (ms > 0) await sleep(ms);
  return next;
};

/** Hangup([cause]): a Q.850 number or a reason name. */
const hangup: DialplanApplication = async ({ channel }, [cause]) => {
  await channel.hangup(parseCause(cause));
  return { kind: 'stop' };
};

function parseCause(text: string | undefined): number {
  if (!text) return CAUSE_NORMAL_CLEARING;
  if (/^\d+$/.test(text)) return Number(text);
  return HANGUP_REASONS[text.toLowerCase() as keyof typeof HANGUP_REASONS] ?? CAUSE_NORMAL_CLEARING;
}

/**
 * Playback(file1[&file2…][,options]): answers first unless `noanswer` is given, plays each file in
 * turn and sets PLAYBACKSTATUS to SUCCESS or FAILED.
 */
const playback: DialplanApplication = async (ctx, [files = '', options = '']) => {
  const { channel, playbacks } = ctx;
  const names = files.split('&').filter((f) => f.length > 0);
  if (names.length === 0) {
    ctx.log.warn('Playback requires a file name');
    channel.setVariable('PLAYBACKSTATUS', 'FAILED');
    return next;
  }
  if (!options.split('|').includes('noanswer')) await channel.answer();
  // The promise exists before the playback starts: a missing sound fails at once, and the
  // original then sets FAILED and goes on to the next priority.
  const started = playbacks.playOnChannelTracked(
    channel,
    names.map((n) => `sound:${n}`),
  );
  const finished = await waitOrHangup(ctx, started.finished);
  channel.setVariable('PLAYBACKSTATUS', finished.phase === 'done' ? 'SUCCESS' : 'FAILED');
  return next;
};

const wait: DialplanApplication = async ({ sleep }, [seconds]) => {
  const ms = Math.max(0, Number(seconds) || 0) * 1000;
  await sleep(ms);
  return next;
};

const noop: DialplanApplication = async () => next;

/** Goto([[context,]exten,]priority-or-label). */
const goto: DialplanApplication = async (_ctx, args) => parseGoto(args);

export function parseGoto(args: string[]): DialplanFlow {
  const parts = args.filter((a) => a !== undefined);
  const [context, exten, target] =
    parts.length >= 3
      ? [parts[0], parts[1], parts[2]]
      : parts.length === 2
        ? [undefined, parts[0], parts[1]]
        : [undefined, undefined, parts[0]];
  if (target === undefined || target === '') return { kind: 'stop' };
  const flow: DialplanFlow = { kind: 'goto' };
  if (context) flow.context = context;
  if (exten) flow.exten = exten;
  if (/^\d+$/.test(target)) flow.priority = Number(target);
  else flow.label = target;
  return flow;
}

/**
 * App(name[,args…]) (alias Stasis): hands the channel to a control application and waits until it
 * leaves. STASISSTATUS becomes SUCCESS, FAILED (not registered) or the channel is gone.
 */
const app: DialplanApplication = async ({ channel, applications, log }, [name = '', ...args]) => {
  const exit = await applications.enter(channel, name, args);
  switch (exit.kind) {
    case 'failed':
      log.warn({ application: name, reason: exit.reason }, 'could not hand channel to application');
      channel.setVariable('STASISSTATUS', 'FAILED');
      return next;
    case 'hangup':
      return { kind: 'stop' };
    case 'continue': {
      channel.setVariable('STASISSTATUS', 'SUCCESS');
      const { kind: _kind, ...target } = exit;
      return Object.keys(target).length > 0 ? { kind: 'goto', ...target } : next;
    }
  }
};

const ringing: DialplanApplication = async ({ channel }) => {
  await channel.indicateRinging();
  return next;
};

const progress: DialplanApplication = async ({ channel }) => {
  await channel.indicateProgress();
  return next;
};

/** Q.850 causes an unanswered channel is refused with (SIP 486 and 503). */
const CAUSE_USER_BUSY = 17;
const CAUSE_CONGESTION = 34;

/**
 * Busy([timeout]) and Congestion([timeout]): an unanswered channel is refused with the condition
 * (the SIP side answers 486 or 503); an answered one hears the `busy` or `congestion` tone of its
 * own tone zone (channel-tone-zone.ts) until it hangs up, or for `timeout` seconds and is then hung up.
 */
function toneCondition(tone: 'busy' | 'congestion', cause: number): DialplanApplication {
  return async (ctx, [timeout]) => {
    const { channel, playbacks } = ctx;
    if (channel.state !== 'Up') {
      await channel.hangup(cause);
      return { kind: 'stop' };
    }
    const started = playbacks.playOnChannel(channel, [`tone:${tone}`]);
    const seconds = Number(timeout);
    if (seconds > 0) {
      await ctx.sleep(seconds * 1000);
      await playbacks.stop(started.id).catch(() => undefined);
      await channel.hangup(cause);
      return { kind: 'stop' };
    }
    await waitOrHangup(ctx, playbacks.whenFinished(started.id));
    return { kind: 'stop' };
  };
}

async function waitOrHangup<T>(ctx: DialplanAppContext, promise: Promise<T>): Promise<T> {
  const signal = ctx.channel.hangupSignal;
  if (signal.aborted) throw signal.reason;
  return await new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Dialplan applications by lower-case name. Drivers add theirs (Dial) through the registry. */
export const BUILTIN_APPLICATIONS: Record<string, DialplanApplication> = {
  answer,
  hangup,
  playback,
  wait,
  noop,
  goto,
  app,
  stasis: app,
  ringing,
  progress,
  busy: toneCondition('busy', CAUSE_USER_BUSY),
  congestion: toneCondition('congestion', CAUSE_CONGESTION),
};
