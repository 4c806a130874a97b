/**
 * Applications of an IVR (the original's names and arguments):
 *
 *   Background(file[&file…][,options[,lang[,context]]])   plays, stops at the first digit and
 *        dials what the caller types in `context` (options: s skip unless answered, n no answer)
 *   WaitExten([seconds][,options])   waits for the caller to dial an extension of this context;
 *        nothing typed → `t`, an unknown extension → `i` (with INVALID_EXTEN), else hang up
 *   Read(var[,file[&file…]][,maxdigits][,options][,attempts][,timeout])   READSTATUS
 *   SayDigits(digits) SayNumber(number) SayAlpha(text)   from digits/ and letters/ prompts
 *   Playtones(tone|pattern) StopPlaytones()   tones of the channel's zone (indications.conf)
 *   SendDTMF(digits[,between_ms[,duration_ms]])   Echo()   MusicOnHold([class[,seconds]])
 *   Record(file.format[,silence[,maxduration[,options]]])   RECORD_STATUS
 *
 * Digits come from DtmfCollector (SIP INFO and RFC 4733 alike); `#` ends a number being dialled.
 */
import type { Channel } from '../../channels/channel.js';
import type { DialplanAppContext, DialplanApplication, DialplanFlow } from '../dialplan-app.js';
import { channelTimeouts } from '../functions/channel-functions.js';
import { requireService } from '../pbx-services.js';

const next: DialplanFlow = { kind: 'next' };
/** A wait for a digit that only the end of the playback or a hangup cuts short. */
const UNTIL_CANCELLED_MS = 24 * 3600 * 1000;

function fileList(files: string): string[] {
  return files
    .split('&')
    .map((f) => f.trim())
    .filter((f) => f.length > 0);
}

export type PlayOutcome = { kind: 'played'; status: 'SUCCESS' | 'FAILED' } | { kind: 'digit'; digit: string };

/** Rejects with the channel's hangup reason once it hangs up. */
function untilHangup(channel: Channel): Promise<never> {
  return new Promise((_resolve, reject) => {
    const signal = channel.hangupSignal;
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Plays `uris`; with `interruptible`, the first digit stops the playback and is returned. */
export async function playMedia(ctx: DialplanAppContext, uris: string[], interruptible: boolean, lang?: string): Promise<PlayOutcome> {
  const { channel, playbacks, pbx } = ctx;
  if (interruptible) {
    const buffered = pbx.dtmf.take(channel.id);
    if (buffered !== undefined) return { kind: 'digit', digit: buffered };
  }
  const { snapshot, finished } = playbacks.playOnChannelTracked(channel, uris, lang ? { lang } : {});
  const hangup = untilHangup(channel);
  hangup.catch(() => undefined);
  if (!interruptible) {
    const playback = await Promise.race([finished, hangup]);
    return { kind: 'played', status: playback.phase === 'done' ? 'SUCCESS' : 'FAILED' };
  }
  const cancel = new AbortController();
  const digit = pbx.dtmf.next(channel.id, UNTIL_CANCELLED_MS, cancel.signal);
  const first = await Promise.race([
    finished.then((playback) => ({
      kind: 'played' as const,
      status: playback.phase === 'done' ? ('SUCCESS' as const) : ('FAILED' as const),
    })),
    digit.then((d) => (d === undefined ? undefined : { kind: 'digit' as const, digit: d })),
    hangup,
  ]);
  if (first?.kind === 'digit') {
    await playbacks.stop(snapshot.id).catch(() => undefined);
    return first;
  }
  cancel.abort();
  const late = await digit;
  if (late !== undefined) return { kind: 'digit', digit: late };
  if (first !== undefined) return first;
  const playback = await Promise.race([finished, hangup]);
  return { kind: 'played', status: playback.phase === 'done' ? 'SUCCESS' : 'FAILED' };
}

/** Collects the rest of an extension after `first`, while more digits could still match. */
async function collectExtension(ctx: DialplanAppContext, first: string, context: string): Promise<string> {
  let exten = first;
  const digitMs = channelTimeouts(ctx.channel).digit * 1000;
  while (ctx.pbx.canMatchMore(context, exten)) {
    const digit = await ctx.pbx.dtmf.next(ctx.channel.id, digitMs, ctx.channel.hangupSignal);
    if (digit === undefined || digit === '#') break;
    exten += digit;
  }
  return exten;
}

/** Where a dialled extension leads: itself, else `i`, else the call ends. */
function dialled(ctx: DialplanAppContext, context: string, exten: string): DialplanFlow {
  if (ctx.pbx.exists(context, exten)) return { kind: 'goto', context, exten, priority: 1 };
  ctx.channel.setVariable('INVALID_EXTEN', exten);
  if (ctx.pbx.exists(context, 'i')) return { kind: 'goto', context, exten: 'i', priority: 1 };
  ctx.log.info({ context, exten }, "invalid extension and no 'i' extension; hanging up");
  return { kind: 'stop' };
}

async function answerUnless(ctx: DialplanAppContext, options: string): Promise<boolean> {
  if (ctx.channel.state === 'Up') return true;
  if (options.includes('s')) return false;
  if (!options.includes('n')) await ctx.channel.answer();
  return true;
}

export const background: DialplanApplication = async (ctx, [files = '', options = '', lang = '', context = '']) => {
  if (!(await answerUnless(ctx, options))) return next;
  const target = context.trim() || ctx.location.context;
  const names = fileList(files);
  if (names.length === 0) return next;
  const outcome = await playMedia(
    ctx,
    names.map((n) => `sound:${n}`),
    true,
    lang.trim() || undefined,
  );
  if (outcome.kind === 'played') {
    ctx.channel.setVariable('BACKGROUNDSTATUS', outcome.status);
    return next;
  }
  ctx.channel.setVariable('BACKGROUNDSTATUS', 'SUCCESS');
  return dialled(ctx, target, await collectExtension(ctx, outcome.digit, target));
};

export const waitExten: DialplanApplication = async (ctx, [seconds = '']) => {
  const context = ctx.location.context;
  const timeouts = channelTimeouts(ctx.channel);
  const waitSeconds = Number.parseFloat(seconds);
  const ms = (Number.isNaN(waitSeconds) || waitSeconds <= 0 ? timeouts.response : waitSeconds) * 1000;
  const first = await ctx.pbx.dtmf.next(ctx.channel.id, ms, ctx.channel.hangupSignal);
  if (ctx.channel.isDestroyed) return { kind: 'stop' };
  if (first === undefined) {
    if (ctx.pbx.exists(context, 't')) return { kind: 'goto', context, exten: 't', priority: 1 };
    ctx.log.info({ context }, "timeout and no 't' extension; hanging up");
    return { kind: 'stop' };
  }
  return dialled(ctx, context, await collectExtension(ctx, first, context));
};

/** Read(variable[,filename[&…]][,maxdigits][,options][,attempts][,timeout]) */
export const read: DialplanApplication = async (
  ctx,
  [variable = '', files = '', maxText = '', options = '', attemptsText = '', timeoutText = ''],
) => {
  const name = variable.trim();
  if (name === '') {
    ctx.log.warn('Read needs a variable name');
    ctx.channel.setVariable('READSTATUS', 'ERROR');
    return next;
  }
  if (!(await answerUnless(ctx, options))) {
    ctx.channel.setVariable('READSTATUS', 'SKIPPED');
    return next;
  }
  const maxDigits = Math.min(255, Math.max(0, Number.parseInt(maxText, 10) || 0));
  const attempts = Math.max(1, Number.parseInt(attemptsText, 10) || 1);
  const timeoutSeconds = Number.parseFloat(timeoutText);
  const waitMs = (Number.isNaN(timeoutSeconds) || timeoutSeconds <= 0 ? channelTimeouts(ctx.channel).digit : timeoutSeconds) * 1000;
  const names = fileList(files);
  let value = '';
  let status = 'TIMEOUT';
  for (let attempt = 0; attempt < attempts && value === ''; attempt++) {
    let first: string | undefined;
    if (names.length > 0) {
      const outcome = await playMedia(
        ctx,
        names.map((n) => `sound:${n}`),
        true,
      );
      if (outcome.kind === 'digit') first = outcome.digit;
    }
    const digits: string[] = [];
    let digit = first ?? (await ctx.pbx.dtmf.next(ctx.channel.id, waitMs, ctx.channel.hangupSignal));
    status = 'TIMEOUT';
    while (digit !== undefined) {
      if (digit === '#') {
        status = 'OK';
        break;
      }
      digits.push(digit);
      if (maxDigits > 0 && digits.length >= maxDigits) {
        status = 'OK';
        break;
      }
      digit = await ctx.pbx.dtmf.next(ctx.channel.id, waitMs, ctx.channel.hangupSignal);
    }
    if (ctx.channel.isDestroyed) {
      status = 'HANGUP';
      break;
    }
    value = digits.join('');
    if (value !== '' && status === 'TIMEOUT') status = 'OK';
  }
  ctx.channel.setVariable(name, value);
  ctx.channel.setVariable('READSTATUS', status);
  return ctx.channel.isDestroyed ? { kind: 'stop' } : next;
};

function say(scheme: 'digits' | 'number' | 'characters'): DialplanApplication {
  return async (ctx, [text = '']) => {
    const value = text.trim();
    if (value === '') return next;
    if (scheme === 'number' && !/^-?\d+$/.test(value)) {
      ctx.log.warn({ value }, 'SayNumber needs a whole number');
      return next;
    }
    await playMedia(ctx, [`${scheme}:${value}`], false);
    return next;
  };
}

const activeTones = new WeakMap<Channel, string>();

export const playtones: DialplanApplication = async (ctx, args) => {
  const tone = args.join(',').trim();
  if (tone === '') {
    ctx.log.warn('Playtones needs a tone name or pattern');
    return next;
  }
  await stopTones(ctx);
  const { snapshot } = ctx.playbacks.playOnChannelTracked(ctx.channel, [`tone:${tone}`]);
  activeTones.set(ctx.channel, snapshot.id);
  return next;
};

async function stopTones(ctx: DialplanAppContext): Promise<void> {
  const id = activeTones.get(ctx.channel);
  if (id === undefined) return;
  activeTones.delete(ctx.channel);
  await ctx.playbacks.stop(id).catch(() => undefined);
}

export const stopPlaytones: DialplanApplication = async (ctx) => {
  await stopTones(ctx);
  return next;
};

export const sendDtmf: DialplanApplication = async (ctx, [digits = '', _between = '', durationText = '']) => {
  const media = requireService(ctx.pbx.media, 'channel media', 'SendDTMF');
  const duration = Number.parseInt(durationText, 10);
  const clean = digits.replace(/[^0-9A-Da-d*#wW,]/g, '').replace(/[wW]/g, ',');
  if (clean === '') return next;
  await media.sendDtmf(ctx.channel, clean, Number.isNaN(duration) || duration <= 0 ? 100 : duration);
  return next;
};

export const echo: DialplanApplication = async (ctx) => {
  const media = requireService(ctx.pbx.media, 'channel media', 'Echo');
  if (ctx.channel.state !== 'Up') await ctx.channel.answer();
  await media.echo(ctx.channel);
  return ctx.channel.isDestroyed ? { kind: 'stop' } : next;
};

export const musicOnHold: DialplanApplication = async (ctx, [mohClass = '', seconds = '']) => {
  const media = requireService(ctx.pbx.media, 'channel media', 'MusicOnHold');
  if (ctx.channel.state !== 'Up') await ctx.channel.answer();
  await media.startMoh(ctx.channel, mohClass.trim() || ctx.channel.getVariable('CHANNEL_MUSICCLASS') || undefined);
  const duration = Number.parseFloat(seconds);
  try {
    if (Number.isNaN(duration) || duration <= 0) await untilHangup(ctx.channel);
    else await ctx.sleep(duration * 1000);
  } finally {
    if (!ctx.channel.isDestroyed) await media.stopMoh(ctx.channel).catch(() => undefined);
  }
  return next;
};

/** Record(filename.format[,silence[,maxduration[,options]]]): options a append, k keep on hangup, q no beep, y any digit ends, x ignore digits. */
export const record: DialplanApplication = async (ctx, [file = '', silence = '', maxDuration = '', options = '']) => {
  const media = requireService(ctx.pbx.media, 'channel media', 'Record');
  const dot = file.lastIndexOf('.');
  if (dot <= 0) {
    ctx.log.warn({ file }, 'Record needs filename.format');
    ctx.channel.setVariable('RECORD_STATUS', 'ERROR');
    return next;
  }
  if (ctx.channel.state !== 'Up') await ctx.channel.answer();
  const name = file.slice(0, dot).replace(/%d/g, String(Date.now()));
  const result = await media.record(ctx.channel, {
    name,
    format: file.slice(dot + 1),
    maxSilenceSeconds: Math.max(0, Number.parseInt(silence, 10) || 0),
    maxDurationSeconds: Math.max(0, Number.parseInt(maxDuration, 10) || 0),
    terminateOn: options.includes('x') ? 'none' : options.includes('y') ? 'any' : '#',
    beep: !options.includes('q'),
  });
  ctx.channel.setVariable('RECORDED_FILE', name);
  const status = { silence: 'SILENCE', dtmf: 'DTMF', 'max-duration': 'TIMEOUT', hangup: 'HANGUP', failed: 'ERROR' }[result.endedBy];
  ctx.channel.setVariable('RECORD_STATUS', status);
  return ctx.channel.isDestroyed ? { kind: 'stop' } : next;
};

export const IVR_APPLICATIONS: Record<string, DialplanApplication> = {
  background,
  waitexten: waitExten,
  read,
  saydigits: say('digits'),
  saynumber: say('number'),
  sayalpha: say('characters'),
  playtones,
  stopplaytones: stopPlaytones,
  senddtmf: sendDtmf,
  echo,
  musiconhold: musicOnHold,
  record,
};
