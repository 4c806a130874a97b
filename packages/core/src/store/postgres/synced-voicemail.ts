/**
 * Voicemail metadata on PostgreSQL: answered from memory (the VoiceMail applications read it
 * synchronously), written through the change feed. A message's key is its id; a password's is
 * its mailbox.
 */
import type pg from 'pg';
import type { VoicemailFolder } from '../../pbx/apps/voicemail/voicemail-config.js';
import { MemoryVoicemailStore, type VoicemailMessage, type VoicemailStore } from '../../pbx/apps/voicemail/voicemail-store.js';
import type { Change, ChangeFeed, SyncedTable } from './change-feed.js';

const TABLE = 'voicemail';
const messageKey = (id: string) => `${TABLE}:message/${id}`;
const passwordKey = (context: string, mailbox: string) => `${TABLE}:password/${mailbox}@${context}`;

interface MessageRow {
  id: string;
  context: string;
  mailbox: string;
  folder: string;
  recording: string;
  format: string;
  caller_id: string;
  orig_time: string;
  duration: number;
}

const toMessage = (r: MessageRow): VoicemailMessage => ({
  id: r.id,
  context: r.context,
  mailbox: r.mailbox,
  folder: r.folder as VoicemailFolder,
  recording: r.recording,
  format: r.format,
  callerId: r.caller_id,
  origTime: Number(r.orig_time),
  durationSeconds: r.duration,
});

/** `mailbox@context` → [mailbox, context]; the context is after the last `@`. */
function splitMailbox(id: string): [string, string] {
  const at = id.lastIndexOf('@');
  return [id.slice(0, at), id.slice(at + 1)];
}

export class SyncedVoicemail implements VoicemailStore, SyncedTable {
  readonly name = TABLE;
  #memory = new MemoryVoicemailStore();
  readonly #feed: ChangeFeed;

  constructor(feed: ChangeFeed) {
    this.#feed = feed;
    feed.register(this);
  }

  list(context: string, mailbox: string, folder?: VoicemailFolder): VoicemailMessage[] {
    return this.#memory.list(context, mailbox, folder);
  }

  password(context: string, mailbox: string): string | undefined {
    return this.#memory.password(context, mailbox);
  }

  add(m: VoicemailMessage): void {
    this.#memory.add(m);
    this.#feed.write(
      `INSERT INTO voicemail_messages (id, context, mailbox, folder, recording, format, caller_id, orig_time, duration)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [m.id, m.context, m.mailbox, m.folder, m.recording, m.format, m.callerId, m.origTime, m.durationSeconds],
      { table: TABLE, key: messageKey(m.id), op: 'add', message: m },
    );
  }

  move(id: string, folder: VoicemailFolder, recording: string): void {
    this.#memory.move(id, folder, recording);
    this.#feed.write('UPDATE voicemail_messages SET folder = $2, recording = $3 WHERE id = $1', [id, folder, recording], {
      table: TABLE,
      key: messageKey(id),
      op: 'move',
      id,
      folder,
      recording,
    });
  }

  remove(id: string): void {
    this.#memory.remove(id);
    this.#feed.write('DELETE FROM voicemail_messages WHERE id = $1', [id], { table: TABLE, key: messageKey(id), op: 'remove', id });
  }

  setPassword(context: string, mailbox: string, password: string): void {
    this.#memory.setPassword(context, mailbox, password);
    this.#feed.write(
      `INSERT INTO voicemail_passwords (context, mailbox, password) VALUES ($1, $2, $3)
       ON CONFLICT (context, mailbox) DO UPDATE SET password = excluded.password`,
      [context, mailbox, password],
      { table: TABLE, key: passwordKey(context, mailbox), op: 'password', context, mailbox, password },
    );
  }

  apply(change: Change): void {
    if (change.op === 'add') this.#memory.add(change.message as VoicemailMessage);
    else if (change.op === 'move') this.#memory.move(String(change.id), change.folder as VoicemailFolder, String(change.recording));
    else if (change.op === 'remove') this.#memory.remove(String(change.id));
    else if (change.op === 'password') this.#memory.setPassword(String(change.context), String(change.mailbox), String(change.password));
  }

  async reload(db: pg.ClientBase, key?: string): Promise<() => void> {
    const what = key?.slice(TABLE.length + 1);
    if (what?.startsWith('message/')) {
      const id = what.slice('message/'.length);
      const { rows } = await db.query<MessageRow>('SELECT * FROM voicemail_messages WHERE id = $1', [id]);
      return () => {
        this.#memory.remove(id);
        if (rows[0]) this.#memory.add(toMessage(rows[0]));
      };
    }
    if (what?.startsWith('password/')) {
      const [mailbox, context] = splitMailbox(what.slice('password/'.length));
      const { rows } = await db.query<{ password: string }>(
        'SELECT password FROM voicemail_passwords WHERE context = $1 AND mailbox = $2',
        [context, mailbox],
      );
      return () => {
        if (rows[0]) this.#memory.setPassword(context, mailbox, rows[0].password);
      };
    }
    const messages = (await db.query<MessageRow>('SELECT * FROM voicemail_messages')).rows;
    const passwords = (await db.query<{ context: string; mailbox: string; password: string }>('SELECT * FROM voicemail_passwords')).rows;
    return () => {
      const fresh = new MemoryVoicemailStore();
      for (const row of messages) fresh.add(toMessage(row));
      for (const row of passwords) fresh.setPassword(row.context, row.mailbox, row.password);
      this.#memory = fresh;
    };
  }
}
