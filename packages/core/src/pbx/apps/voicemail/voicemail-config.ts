/**
 * voicemail.conf with the original's names:
 *
 *   [general]  format (wav), serveremail (From address), fromstring (From name), attach (yes),
 *              maxmsg (100), maxsecs (300), minsecs (1), maxsilence (5), emailsubject, emailbody
 *              (${VM_NAME} ${VM_MAILBOX} ${VM_CONTEXT} ${VM_CALLERID} ${VM_DUR} ${VM_DATE} ${VM_MSGNUM}),
 *              smtp_server = host[:port] (the relay mail goes through; the original's mailcmd is not used),
 *              smtp_user, smtp_password
 *   [zonemessages]  not used
 *   [<context>]  <mailbox> => password,full name,email,pager email,options (attach=yes|no)
 */
import { resolve } from 'node:path';
import { readIniFile } from '../../../config/ini-file.js';
import type { IniOption } from '../../../config/ini.js';
import { warnUnsupported } from '../../../config/option-table.js';
import { invalid, parseBool, parseInteger } from '../../../config/values.js';
import type { Logger } from '../../../util/logger.js';

export const VOICEMAIL_CONFIG_FILE = 'voicemail.conf';

/** The folders of a mailbox, numbered as the original numbers them. */
export const VOICEMAIL_FOLDERS = ['INBOX', 'Old', 'Work', 'Family', 'Friends', 'Urgent'] as const;
export type VoicemailFolder = (typeof VOICEMAIL_FOLDERS)[number];

export interface MailboxConfig {
  context: string;
  mailbox: string;
  password: string;
  fullName: string;
  email: string;
  pager: string;
  attach: boolean;
}

export interface VoicemailConfig {
  format: string;
  serverEmail: string;
  fromString: string;
  attach: boolean;
  maxMessages: number;
  maxSeconds: number;
  minSeconds: number;
  maxSilence: number;
  emailSubject: string;
  emailBody: string;
  smtp?: { host: string; port: number; user?: string; password?: string };
  /** `mailbox@context` → its configuration. */
  mailboxes: Map<string, MailboxConfig>;
}

/** `${VM_<name>}`: a variable of the original's email templates (voicemail-mailer.ts expands them). */
const vm = (name: string) => `\${VM_${name}}`;
const DEFAULT_SUBJECT = `New message ${vm('MSGNUM')} in mailbox ${vm('MAILBOX')}`;
const DEFAULT_BODY = `Dear ${vm('NAME')},\n\nyou have a new message of ${vm('DUR')} from ${vm('CALLERID')} in mailbox ${vm('MAILBOX')}@${vm('CONTEXT')}, left ${vm('DATE')}.\n`;

export function defaultVoicemailConfig(): VoicemailConfig {
  return {
    format: 'wav',
    serverEmail: 'switchboard@localhost',
    fromString: 'Switchboard Voicemail',
    attach: true,
    maxMessages: 100,
    maxSeconds: 300,
    minSeconds: 1,
    maxSilence: 5,
    emailSubject: DEFAULT_SUBJECT,
    emailBody: DEFAULT_BODY,
    mailboxes: new Map(),
  };
}

/** `1001` or `1001@sales` → its key; the context defaults to `default`, as in the original. */
export function mailboxKey(text: string): { mailbox: string; context: string; key: string } {
  const [mailbox = '', context = ''] = text.trim().split('@');
  const ctx = context.trim() || 'default';
  return { mailbox: mailbox.trim(), context: ctx, key: `${mailbox.trim()}@${ctx}` };
}

export function readVoicemailConfig(confDir: string, log: Logger): VoicemailConfig {
  const config = defaultVoicemailConfig();
  const doc = readIniFile(resolve(confDir, VOICEMAIL_CONFIG_FILE));
  if (doc === undefined) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    const name = section.name.toLowerCase();
    if (name === 'general') {
      for (const option of section.options) readGeneral(config, option, log, section.name);
    } else if (name === 'zonemessages') {
      // Time zones of envelopes are not configurable here: the server's zone is used.
    } else {
      for (const option of section.options) {
        const line = option.value.split(',');
        const [password = '', fullName = '', email = '', pager = '', options = ''] = line.map((v) => v.trim());
        if (!/^[0-9A-Za-z*#+_-]+$/.test(option.rawKey)) throw invalid(option, `'${option.rawKey}' is not a mailbox number`);
        const attachOption = /attach=(yes|no|true|false)/i.exec(options)?.[1];
        config.mailboxes.set(`${option.rawKey}@${section.name}`, {
          context: section.name,
          mailbox: option.rawKey,
          password,
          fullName,
          email,
          pager,
          attach: attachOption === undefined ? config.attach : /^(yes|true)$/i.test(attachOption),
        });
      }
    }
  }
  return config;
}

function readGeneral(config: VoicemailConfig, option: IniOption, log: Logger, section: string): void {
  switch (option.key) {
    case 'format':
      config.format = option.value.split('|')[0].trim() || 'wav';
      return;
    case 'serveremail':
      config.serverEmail = option.value.trim();
      return;
    case 'fromstring':
      config.fromString = option.value.trim();
      return;
    case 'attach':
      config.attach = parseBool(option);
      return;
    case 'maxmsg':
      config.maxMessages = parseInteger(option, 1, 9999);
      return;
    case 'maxsecs':
    case 'maxmessage':
      config.maxSeconds = parseInteger(option, 1, 86_400);
      return;
    case 'minsecs':
    case 'minmessage':
      config.minSeconds = parseInteger(option, 0, 3600);
      return;
    case 'maxsilence':
      config.maxSilence = parseInteger(option, 0, 3600);
      return;
    case 'emailsubject':
      config.emailSubject = option.value;
      return;
    case 'emailbody':
      config.emailBody = option.value.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
      return;
    case 'smtp_server': {
      const [host = '', port = '25'] = option.value.trim().split(':');
      const portNumber = Number(port);
      if (host === '' || !Number.isInteger(portNumber) || portNumber < 1 || portNumber > 65535)
        throw invalid(option, 'expected host[:port]');
      config.smtp = { ...config.smtp, host, port: portNumber };
      return;
    }
    case 'smtp_user':
      if (config.smtp) config.smtp.user = option.value.trim();
      return;
    case 'smtp_password':
      if (config.smtp) config.smtp.password = option.value.trim();
      return;
    default:
      warnUnsupported(log, option, section);
  }
}
