/**
 * Mailboxes of voicemail.conf and their messages. A message is a stored recording at
 * `voicemail/<context>/<mailbox>/<folder>/<id>.<format>` under the recording directory (so the API
 * lists it), with its metadata in the voicemail store. Every change of a mailbox's INBOX/Old counts
 * goes to core's mailbox objects (name `mailbox@context`): the API's mailboxes resource and the
 * phones' message-waiting lamps follow the store. A new message is mailed, with the audio
 * attached, through the SMTP relay of voicemail.conf.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventBus } from '../../../events/event-bus.js';
import type { MailboxRegistry } from '../../../mailboxes/mailbox-registry.js';
import { recordingFile } from '../../../recordings/recording-paths.js';
import type { Logger } from '../../../util/logger.js';
import type { MailboxConfig, VoicemailConfig, VoicemailFolder } from './voicemail-config.js';
import { writeMailboxPassword } from './voicemail-conf-writer.js';
import { sendVoicemailEmail } from './voicemail-mailer.js';
import type { VoicemailMessage, VoicemailStore } from './voicemail-store.js';

export type GreetingKind = 'unavail' | 'busy' | 'greet' | 'temp';

/** Where a message just left lands. */
export type NewMessageFolder = Extract<VoicemailFolder, 'INBOX' | 'Urgent'>;

export interface VoicemailDeps {
  config: () => VoicemailConfig;
  store: VoicemailStore;
  mailboxes: Pick<MailboxRegistry, 'update'>;
  bus: EventBus;
  recordingRoot: string;
  /** voicemail.conf: a password changed from the phone is written back to it. */
  configFile?: string;
  log: Logger;
}

/** A mailbox as the operator console lists it. */
export interface MailboxSummary {
  context: string;
  mailbox: string;
  full_name: string;
  email: string;
  new_messages: number;
  old_messages: number;
  urgent_messages: number;
}

export class VoicemailService {
  readonly #deps: VoicemailDeps;

  constructor(deps: VoicemailDeps) {
    this.#deps = deps;
  }

  get config(): VoicemailConfig {
    return this.#deps.config();
  }

  mailbox(context: string, mailbox: string): MailboxConfig | undefined {
    return this.config.mailboxes.get(`${mailbox}@${context}`);
  }

  /** The password in force: changed from the phone (store) or the file's. */
  password(box: MailboxConfig): string {
    return this.#deps.store.password(box.context, box.mailbox) ?? box.password;
  }

  /** Keeps the new password in the store and rewrites the mailbox's line of voicemail.conf. */
  setPassword(box: MailboxConfig, password: string): void {
    this.#deps.store.setPassword(box.context, box.mailbox, password);
    const file = this.#deps.configFile;
    if (file === undefined || !existsSync(file)) return;
    try {
      if (!writeMailboxPassword(file, box.context, box.mailbox, password))
        this.#deps.log.warn(
          { mailbox: `${box.mailbox}@${box.context}` },
          'mailbox line not found in voicemail.conf; password kept in the store only',
        );
    } catch (err) {
      this.#deps.log.warn(
        { err, mailbox: `${box.mailbox}@${box.context}` },
        'voicemail.conf not rewritten; password kept in the store only',
      );
    }
  }

  messages(box: MailboxConfig, folder?: VoicemailFolder): VoicemailMessage[] {
    return this.#deps.store.list(box.context, box.mailbox, folder);
  }

  count(box: MailboxConfig, folder: VoicemailFolder): number {
    return this.messages(box, folder).length;
  }

  /** New messages as the original counts them (lamp, VMCOUNT of INBOX): INBOX and Urgent together. */
  newCount(box: MailboxConfig): number {
    return this.count(box, 'INBOX') + this.count(box, 'Urgent');
  }

  /** Every configured mailbox with its counts (console: voicemail show users). */
  list(): MailboxSummary[] {
    return [...this.config.mailboxes.values()].map((box) => ({
      context: box.context,
      mailbox: box.mailbox,
      full_name: box.fullName,
      email: box.email,
      new_messages: this.newCount(box),
      old_messages: this.count(box, 'Old'),
      urgent_messages: this.count(box, 'Urgent'),
    }));
  }

  /** The recording name a new message is written to (INBOX, or Urgent for VoiceMail's `U`). */
  newMessageRecording(box: MailboxConfig, folder: NewMessageFolder = 'INBOX'): { id: string; recording: string } {
    const id = `msg-${Date.now()}-${randomUUID().slice(0, 8)}`;
    return { id, recording: folderRecording(box, folder, id) };
  }

  greetingRecording(box: MailboxConfig, kind: GreetingKind): string {
    return `voicemail/${box.context}/${box.mailbox}/${kind}`;
  }

  hasGreeting(box: MailboxConfig, kind: GreetingKind): boolean {
    return existsSync(this.#file(this.greetingRecording(box, kind), this.config.format));
  }

  /**
   * Keeps a message just recorded into `recording`: too short (minsecs) is discarded; otherwise
   * it is stored, the lamp goes on and the owner is mailed. Returns the message, or undefined.
   */
  deposit(
    box: MailboxConfig,
    id: string,
    recording: string,
    callerId: string,
    folder: NewMessageFolder = 'INBOX',
  ): VoicemailMessage | undefined {
    const format = this.config.format;
    const file = this.#file(recording, format);
    if (!existsSync(file)) return undefined;
    const durationSeconds = audioSeconds(file, format);
    if (durationSeconds < this.config.minSeconds) {
      unlinkSync(file);
      this.#deps.log.info({ mailbox: `${box.mailbox}@${box.context}`, durationSeconds }, 'voicemail message too short; discarded');
      return undefined;
    }
    const message: VoicemailMessage = {
      id,
      context: box.context,
      mailbox: box.mailbox,
      folder,
      recording,
      format,
      callerId,
      origTime: Math.floor(Date.now() / 1000),
      durationSeconds: Math.round(durationSeconds),
    };
    this.#deps.store.add(message);
    this.#deps.bus.publish({
      type: 'VoicemailMessageStored',
      mailbox: box.mailbox,
      context: box.context,
      folder,
      message_id: id,
      duration: message.durationSeconds,
      caller_id: callerId,
    });
    void this.publishCounts(box);
    if (box.email !== '') {
      const config = this.config;
      void sendVoicemailEmail(config, box, message, file, this.newCount(box)).catch((err: unknown) =>
        this.#deps.log.warn({ err, mailbox: `${box.mailbox}@${box.context}` }, 'voicemail email not sent'),
      );
    }
    return message;
  }

  /**
   * Leaves a copy of a message in another mailbox as a new message (VoiceMail with several
   * mailboxes, forwarding from VoiceMailMain); an urgent message stays urgent.
   */
  depositCopy(
    box: MailboxConfig,
    original: VoicemailMessage,
    folder: NewMessageFolder = original.folder === 'Urgent' ? 'Urgent' : 'INBOX',
  ): VoicemailMessage | undefined {
    const { id, recording } = this.newMessageRecording(box, folder);
    const from = this.#file(original.recording, original.format);
    if (!existsSync(from)) return undefined;
    const to = this.#file(recording, original.format);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    return this.deposit(box, id, recording, original.callerId, folder);
  }

  /** Moves a message to another folder (its file too). */
  move(box: MailboxConfig, message: VoicemailMessage, folder: VoicemailFolder): VoicemailMessage {
    if (message.folder === folder) return message;
    const recording = folderRecording(box, folder, message.id);
    const from = this.#file(message.recording, message.format);
    const to = this.#file(recording, message.format);
    mkdirSync(dirname(to), { recursive: true });
    if (existsSync(from)) renameSync(from, to);
    this.#deps.store.move(message.id, folder, recording);
    this.#deps.bus.publish({
      type: 'VoicemailMessageMoved',
      mailbox: box.mailbox,
      context: box.context,
      from_folder: message.folder,
      to_folder: folder,
      message_id: message.id,
    });
    void this.publishCounts(box);
    return { ...message, folder, recording };
  }

  remove(box: MailboxConfig, message: VoicemailMessage): void {
    const file = this.#file(message.recording, message.format);
    if (existsSync(file)) unlinkSync(file);
    this.#deps.store.remove(message.id);
    this.#deps.bus.publish({
      type: 'VoicemailMessageRemoved',
      mailbox: box.mailbox,
      context: box.context,
      folder: message.folder,
      message_id: message.id,
    });
    void this.publishCounts(box);
  }

  /** Tells core's mailbox (and so the API and the phones' lamps) the INBOX/Old counts. */
  async publishCounts(box: MailboxConfig): Promise<void> {
    const newMessages = this.newCount(box);
    const oldMessages = this.count(box, 'Old');
    this.#deps.bus.publish({
      type: 'MessageWaiting',
      mailbox: box.mailbox,
      context: box.context,
      new_messages: newMessages,
      old_messages: oldMessages,
    });
    await this.#deps.mailboxes
      .update(`${box.mailbox}@${box.context}`, oldMessages, newMessages)
      .catch((err: unknown) => this.#deps.log.warn({ err, mailbox: `${box.mailbox}@${box.context}` }, 'mailbox counts not published'));
  }

  /** At startup: every mailbox's counts as the store has them. */
  async publishAll(): Promise<void> {
    for (const box of this.config.mailboxes.values()) await this.publishCounts(box);
  }

  #file(recording: string, format: string): string {
    return recordingFile(this.#deps.recordingRoot, recording, format);
  }
}

function folderRecording(box: MailboxConfig, folder: VoicemailFolder, id: string): string {
  return `voicemail/${box.context}/${box.mailbox}/${folder}/${id}`;
}

/** Seconds of audio in a file of a format the recorder writes (8 kHz; wav has a 44-byte header). */
function audioSeconds(file: string, format: string): number {
  const size = statSync(file).size;
  switch (format) {
    case 'wav':
      return Math.max(0, size - 44) / 16_000;
    case 'sln':
      return size / 16_000;
    case 'ulaw':
    case 'alaw':
    case 'g722':
      return size / 8000;
    default:
      return size / 16_000;
  }
}
