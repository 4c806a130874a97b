/**
 * VoiceMailMain([mailbox][@context][,s]): the owner's menu, driven by DTMF.
 *
 *   login ──► "you have N new and M old messages" ──► main menu
 *   main menu:   1 listen (urgent and new first, then old)   0 mailbox options   # goodbye
 *   a message:   envelope (voicemail-envelope.ts: received <day> at <time>, from <digits>), then
 *                the message; 5 repeat  4 previous  6 next  7 delete  8 forward to another
 *                mailbox of the context  9<folder 0-5> save  # / * main menu
 *                (an urgent or new message heard moves to Old, as in the original)
 *   options:     1 unavailable  2 busy  3 name  4 temporary greeting  5 password  * back
 *
 * Passwords are read up to `#`; three wrong logins end the call's attempt (vm-incorrect).
 */
import type { DialplanAppContext, DialplanApplication } from '../../dialplan-app.js';
import { requireService } from '../../pbx-services.js';
import { playMedia } from '../ivr-apps.js';
import { type MailboxConfig, mailboxKey, VOICEMAIL_FOLDERS, type VoicemailFolder } from './voicemail-config.js';
import { envelope } from './voicemail-envelope.js';
import type { GreetingKind, NewMessageFolder, VoicemailService } from './voicemail-service.js';
import type { VoicemailMessage } from './voicemail-store.js';

const LOGIN_ATTEMPTS = 3;
const DIGIT_TIMEOUT_MS = 5000;
/** Rounds of a menu prompt without an answer before giving up. */
const MENU_REPEATS = 3;

type Box = MailboxConfig;

/** Plays prompts (interruptible) and returns the first digit, or the next one within the timeout. */
async function ask(ctx: DialplanAppContext, uris: string[], timeoutMs = DIGIT_TIMEOUT_MS): Promise<string | undefined> {
  const outcome = await playMedia(ctx, uris, true);
  if (outcome.kind === 'digit') return outcome.digit;
  return await ctx.pbx.dtmf.next(ctx.channel.id, timeoutMs, ctx.channel.hangupSignal);
}

/** Prompts, then digits up to `#` (or a pause). */
async function readDigits(ctx: DialplanAppContext, uris: string[]): Promise<string> {
  let digit = await ask(ctx, uris);
  let text = '';
  while (digit !== undefined && digit !== '#' && text.length < 64) {
    text += digit;
    digit = await ctx.pbx.dtmf.next(ctx.channel.id, DIGIT_TIMEOUT_MS, ctx.channel.hangupSignal);
  }
  return text;
}

export function voiceMailMain(service: VoicemailService): DialplanApplication {
  return async (ctx, [target = '', options = '']) => {
    const { channel } = ctx;
    await channel.answer();
    const box = await login(ctx, service, target, options.includes('s'));
    if (!box) return channel.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
    // A digit typed during the counts is the first menu choice.
    let typed = await announceCounts(ctx, service, box);
    for (let idle = 0; idle < MENU_REPEATS && !channel.isDestroyed; ) {
      const choice = typed ?? (await ask(ctx, ['sound:vm-instructions']));
      typed = undefined;
      if (choice === undefined) {
        idle += 1;
        continue;
      }
      idle = 0;
      if (choice === '1') await listen(ctx, service, box);
      else if (choice === '0') await mailboxOptions(ctx, service, box);
      else if (choice === '#') break;
    }
    if (!channel.isDestroyed) await playMedia(ctx, ['sound:vm-goodbye'], false);
    return channel.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
  };
}

async function login(ctx: DialplanAppContext, service: VoicemailService, target: string, skipPassword: boolean): Promise<Box | undefined> {
  const given = target.trim() === '' ? undefined : mailboxKey(target);
  for (let attempt = 0; attempt < LOGIN_ATTEMPTS && !ctx.channel.isDestroyed; attempt++) {
    const mailbox = given?.mailbox || (await readDigits(ctx, ['sound:vm-login']));
    const box = service.mailbox(given?.context ?? 'default', mailbox);
    if (box && skipPassword && given) return box;
    const password = await readDigits(ctx, ['sound:vm-password']);
    if (box && password === service.password(box)) return box;
    if (!ctx.channel.isDestroyed) await playMedia(ctx, ['sound:vm-incorrect'], false);
  }
  return undefined;
}

/**
 * "You have <u> urgent, <n> new and <m> old messages" (the urgent part only when there are some,
 * "no new messages" when there are none at all); returns a digit that interrupted it.
 */
async function announceCounts(ctx: DialplanAppContext, service: VoicemailService, box: Box): Promise<string | undefined> {
  const outcome = await playMedia(
    ctx,
    countPrompts(service.count(box, 'Urgent'), service.count(box, 'INBOX'), service.count(box, 'Old')),
    true,
  );
  return outcome.kind === 'digit' ? outcome.digit : undefined;
}

export function countPrompts(urgent: number, fresh: number, old: number): string[] {
  const count = (n: number, folder: string) => [
    n === 0 ? 'sound:vm-no' : `number:${n}`,
    `sound:vm-${folder}`,
    n === 1 ? 'sound:vm-message' : 'sound:vm-messages',
  ];
  const parts: string[][] = [];
  if (urgent > 0) parts.push(count(urgent, 'Urgent'));
  if (fresh > 0 || urgent === 0) parts.push(count(fresh, 'INBOX'));
  if (old > 0) parts.push(count(old, 'Old'));
  return ['sound:vm-youhave', ...parts.flatMap((part, i) => (i === 0 ? part : ['sound:vm-and', ...part]))];
}

async function listen(ctx: DialplanAppContext, service: VoicemailService, box: Box): Promise<void> {
  const fresh = [...service.messages(box, 'Urgent'), ...service.messages(box, 'INBOX')];
  const list = fresh.length > 0 ? fresh : service.messages(box, 'Old');
  // A message heard moves to Old; forwarded afterwards, an urgent one still arrives urgent.
  const urgent = new Set(list.filter((m) => m.folder === 'Urgent').map((m) => m.id));
  if (list.length === 0) {
    await playMedia(ctx, ['sound:vm-nomore'], false);
    return;
  }
  let index = 0;
  let replay = true;
  while (!ctx.channel.isDestroyed) {
    if (index >= list.length) {
      await playMedia(ctx, ['sound:vm-nomore'], false);
      return;
    }
    let message = list[index];
    let digit: string | undefined;
    if (replay) {
      const heard = await playMedia(
        ctx,
        [...(index === 0 ? ['sound:vm-first'] : []), ...envelope(message), `recording:${message.recording}`],
        true,
      );
      if (message.folder === 'INBOX' || message.folder === 'Urgent') {
        message = service.move(box, message, 'Old');
        list[index] = message;
      }
      if (heard.kind === 'digit') digit = heard.digit;
    }
    replay = false;
    digit ??= await ask(ctx, ['sound:vm-msginstruct']);
    switch (digit) {
      case '5':
        replay = true;
        break;
      case '4':
        index = Math.max(0, index - 1);
        replay = true;
        break;
      case '6':
        index += 1;
        replay = true;
        break;
      case '7':
        service.remove(box, message);
        list.splice(index, 1);
        await playMedia(ctx, ['sound:vm-deleted'], false);
        replay = true;
        break;
      case '8':
        await forward(ctx, service, box, message, urgent.has(message.id) ? 'Urgent' : 'INBOX');
        break;
      case '9': {
        const folderDigit = await ctx.pbx.dtmf.next(ctx.channel.id, DIGIT_TIMEOUT_MS, ctx.channel.hangupSignal);
        const folder: VoicemailFolder | undefined = VOICEMAIL_FOLDERS[Number(folderDigit)];
        if (folder !== undefined && folderDigit !== undefined && /^[0-5]$/.test(folderDigit)) {
          list[index] = service.move(box, message, folder);
          await playMedia(ctx, ['sound:vm-savedto', `sound:vm-${folder}`], false);
          index += 1;
          replay = true;
        }
        break;
      }
      case '#':
      case '*':
      case undefined:
        return;
    }
  }
}

/** 8: the message is copied, as a new message, to a mailbox of the same context the owner dials. */
async function forward(
  ctx: DialplanAppContext,
  service: VoicemailService,
  box: Box,
  message: VoicemailMessage,
  folder: NewMessageFolder,
): Promise<void> {
  for (let attempt = 0; attempt < LOGIN_ATTEMPTS && !ctx.channel.isDestroyed; attempt++) {
    const number = await readDigits(ctx, ['sound:vm-extension']);
    if (number === '') return;
    const to = service.mailbox(box.context, number);
    if (to && service.depositCopy(to, message, folder)) {
      await playMedia(ctx, ['sound:vm-msgforwarded'], false);
      return;
    }
    await playMedia(ctx, ['sound:pbx-invalid'], false);
  }
}

async function mailboxOptions(ctx: DialplanAppContext, service: VoicemailService, box: Box): Promise<void> {
  const greetings: Record<string, [GreetingKind, string]> = {
    '1': ['unavail', 'vm-rec-unv'],
    '2': ['busy', 'vm-rec-busy'],
    '3': ['greet', 'vm-rec-name'],
    '4': ['temp', 'vm-rec-temp'],
  };
  while (!ctx.channel.isDestroyed) {
    const choice = await ask(ctx, ['sound:vm-options']);
    if (choice === undefined || choice === '*' || choice === '#') return;
    const greeting = greetings[choice];
    if (greeting) {
      await playMedia(ctx, [`sound:${greeting[1]}`], false);
      const media = requireService(ctx.pbx.media, 'recording', 'VoiceMailMain');
      const outcome = await media.record(ctx.channel, {
        name: service.greetingRecording(box, greeting[0]),
        format: service.config.format,
        maxSilenceSeconds: service.config.maxSilence,
        maxDurationSeconds: service.config.maxSeconds,
        terminateOn: '#',
        beep: true,
      });
      if (outcome.endedBy !== 'failed' && !ctx.channel.isDestroyed) await playMedia(ctx, ['sound:vm-msgsaved'], false);
    } else if (choice === '5') {
      const first = await readDigits(ctx, ['sound:vm-newpassword']);
      const second = await readDigits(ctx, ['sound:vm-reenterpassword']);
      if (first !== '' && first === second) {
        service.setPassword(box, first);
        await playMedia(ctx, ['sound:vm-passchanged'], false);
      } else {
        await playMedia(ctx, ['sound:vm-mismatch'], false);
      }
    }
  }
}
