/**
 * VoiceMail(mailbox[@context][&mailbox[@context]…][,options]) leaves a message (options: `u` unavailable greeting,
 * `b` busy greeting, `s` no greeting or instructions, `U` the message is urgent: it lands in the
 * Urgent folder and counts as new), VoiceMailMain([mailbox][@context][,s]) (voicemail-main.ts),
 * VMCOUNT(mailbox[@context][,folder]) (INBOX, the default, counts Urgent too, as in the original)
 * and MAILBOX_EXISTS(mailbox[@context]).
 * VMSTATUS is SUCCESS, USEREXIT or FAILED as in the original.
 */
import type { DialplanAppContext, DialplanApplication } from '../../dialplan-app.js';
import type { DialplanRunner } from '../../dialplan-runner.js';
import type { DialplanFunction } from '../../pbx-services.js';
import { requireService } from '../../pbx-services.js';
import { playMedia } from '../ivr-apps.js';
import { type MailboxConfig, mailboxKey, VOICEMAIL_FOLDERS, type VoicemailFolder } from './voicemail-config.js';
import { voiceMailMain } from './voicemail-main.js';
import { type VoicemailDeps, VoicemailService } from './voicemail-service.js';

export function installVoicemail(deps: VoicemailDeps & { runner: DialplanRunner }): VoicemailService {
  const service = new VoicemailService(deps);

  const voiceMail: DialplanApplication = async (ctx, [target = '', options = '']) => {
    const { channel, log } = ctx;
    // mailbox[@context][&mailbox[@context]…]: the greeting is the first one's, the message goes to each.
    const [first, ...others] = target.split('&').map((t) => mailboxKey(t));
    const { mailbox, context } = first ?? mailboxKey('');
    const box = service.mailbox(context, mailbox);
    if (!box) {
      log.warn({ mailbox: `${mailbox}@${context}` }, 'VoiceMail: no such mailbox');
      channel.setVariable('VMSTATUS', 'FAILED');
      return { kind: 'next' };
    }
    const config = service.config;
    if (service.messages(box).length >= config.maxMessages) {
      await channel.answer();
      await playMedia(ctx, ['sound:vm-mailboxfull'], false);
      channel.setVariable('VMSTATUS', 'FAILED');
      return { kind: 'next' };
    }
    await channel.answer();
    if (!options.includes('s')) {
      const escaped = await playGreeting(ctx, service, box, options.includes('b') ? 'busy' : 'unavail');
      if (escaped) {
        channel.setVariable('VMSTATUS', 'USEREXIT');
        return { kind: 'next' };
      }
    }
    const media = requireService(ctx.pbx.media, 'recording', 'VoiceMail');
    const folder = options.includes('U') ? 'Urgent' : 'INBOX';
    const { id, recording } = service.newMessageRecording(box, folder);
    const outcome = await media.record(channel, {
      name: recording,
      format: config.format,
      maxSilenceSeconds: config.maxSilence,
      maxDurationSeconds: config.maxSeconds,
      terminateOn: '#',
      beep: true,
    });
    const callerId = channel.caller.number === '' ? '' : `"${channel.caller.name}" <${channel.caller.number}>`;
    const message = outcome.endedBy === 'failed' ? undefined : service.deposit(box, id, recording, callerId, folder);
    if (message) {
      for (const other of others) {
        const copyTo = service.mailbox(other.context, other.mailbox);
        if (copyTo) service.depositCopy(copyTo, message);
        else log.warn({ mailbox: other.key }, 'VoiceMail: no such mailbox; no copy left there');
      }
    }
    if (!channel.isDestroyed) {
      channel.setVariable('VMSTATUS', message ? 'SUCCESS' : 'FAILED');
      if (message) await playMedia(ctx, ['sound:vm-goodbye'], false);
    }
    return channel.isDestroyed ? { kind: 'stop' } : { kind: 'next' };
  };

  const vmCount: DialplanFunction = {
    read: (_ctx, args) => {
      const [target = '', folderText = ''] = args.split(',');
      const { mailbox, context } = mailboxKey(target);
      const box = service.mailbox(context, mailbox);
      if (!box) return '0';
      const folder = VOICEMAIL_FOLDERS.find((f) => f.toLowerCase() === (folderText.trim() || 'INBOX').toLowerCase()) as
        | VoicemailFolder
        | undefined;
      if (folder === undefined) return '0';
      return String(folder === 'INBOX' ? service.newCount(box) : service.count(box, folder));
    },
  };

  const mailboxExists: DialplanFunction = {
    read: (_ctx, args) => {
      const { mailbox, context } = mailboxKey(args);
      return service.mailbox(context, mailbox) ? '1' : '0';
    },
  };

  deps.runner.registerApplication('VoiceMail', voiceMail);
  deps.runner.registerApplication('VoiceMailMain', voiceMailMain(service));
  deps.runner.registerFunction('VMCOUNT', vmCount);
  deps.runner.registerFunction('MAILBOX_EXISTS', mailboxExists);
  return service;
}

/**
 * The greeting a caller hears: the temporary one if recorded, else the recorded unavailable/busy
 * one, else "the person at extension" with the owner's recorded name (or the mailbox's digits
 * when there is none, as the original does) and "is unavailable" / "is on the phone".
 */
export function greetingUris(
  service: Pick<VoicemailService, 'hasGreeting' | 'greetingRecording'>,
  box: MailboxConfig,
  kind: 'unavail' | 'busy',
): string[] {
  const recorded = service.hasGreeting(box, 'temp') ? 'temp' : service.hasGreeting(box, kind) ? kind : undefined;
  if (recorded !== undefined) return [`recording:${service.greetingRecording(box, recorded)}`];
  const who = service.hasGreeting(box, 'greet') ? `recording:${service.greetingRecording(box, 'greet')}` : `digits:${box.mailbox}`;
  return ['sound:vm-theperson', who, kind === 'busy' ? 'sound:vm-isonphone' : 'sound:vm-isunavail'];
}

/** The greeting, then the instructions. `*` or `#` during them leaves without a message (USEREXIT), any other digit is ignored. */
async function playGreeting(
  ctx: DialplanAppContext,
  service: VoicemailService,
  box: MailboxConfig,
  kind: 'unavail' | 'busy',
): Promise<boolean> {
  for (const list of [greetingUris(service, box, kind), ['sound:vm-intro']]) {
    const outcome = await playMedia(ctx, list, true);
    if (outcome.kind === 'digit' && (outcome.digit === '*' || outcome.digit === '#')) return true;
  }
  return false;
}
