/**
 * The new-message email: through the SMTP relay of voicemail.conf (`smtp_server`) with
 * nodemailer, from `serveremail`/`fromstring`, subject and body from `emailsubject`/`emailbody`
 * with the original's ${VM_…} variables (${VM_FLAG} is `Urgent` for an urgent message, which is
 * also sent with high priority), the audio attached when `attach` is on.
 */
import { basename } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailboxConfig, VoicemailConfig } from './voicemail-config.js';
import type { VoicemailMessage } from './voicemail-store.js';

export function emailVariables(box: MailboxConfig, message: VoicemailMessage, messageNumber: number): Record<string, string> {
  const minutes = Math.floor(message.durationSeconds / 60);
  const seconds = message.durationSeconds % 60;
  return {
    VM_NAME: box.fullName,
    VM_MAILBOX: box.mailbox,
    VM_CONTEXT: box.context,
    VM_CALLERID: message.callerId || 'an unknown caller',
    VM_CIDNUM: message.callerId,
    VM_DUR: `${minutes}:${String(seconds).padStart(2, '0')}`,
    VM_DATE: new Date(message.origTime * 1000).toUTCString(),
    VM_MSGNUM: String(messageNumber),
    VM_FLAG: message.folder === 'Urgent' ? 'Urgent' : '',
  };
}

export function substitute(template: string, variables: Record<string, string>): string {
  return template.replace(/\$\{(VM_[A-Z]+)\}/g, (whole, name: string) => variables[name] ?? whole);
}

export async function sendVoicemailEmail(
  config: VoicemailConfig,
  box: MailboxConfig,
  message: VoicemailMessage,
  file: string,
  messageNumber: number,
): Promise<void> {
  const smtp = config.smtp;
  if (smtp === undefined) throw new Error('voicemail.conf names no smtp_server to send through');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: false,
    ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
  });
  const variables = emailVariables(box, message, messageNumber);
  try {
    await transport.sendMail({
      from: { name: config.fromString, address: config.serverEmail },
      to: box.fullName === '' ? box.email : { name: box.fullName, address: box.email },
      subject: substitute(config.emailSubject, variables),
      text: substitute(config.emailBody, variables),
      ...(message.folder === 'Urgent' ? { priority: 'high' as const } : {}),
      ...(box.attach ? { attachments: [{ filename: `${basename(message.recording)}.${message.format}`, path: file }] } : {}),
    });
  } finally {
    transport.close();
  }
}
