/**
 * Voicemail metadata in SQLite. The tables are created in place when missing (the feature's own
 * tables, independent of the numbered migrations of the core schema).
 */
import type Database from 'better-sqlite3';
import type { VoicemailFolder } from '../pbx/apps/voicemail/voicemail-config.js';
import type { VoicemailMessage, VoicemailStore } from '../pbx/apps/voicemail/voicemail-store.js';

interface MessageRow {
  id: string;
  context: string;
  mailbox: string;
  folder: string;
  recording: string;
  format: string;
  caller_id: string;
  orig_time: number;
  duration: number;
}

export class SqliteVoicemail implements VoicemailStore {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS voicemail_messages (
        id TEXT PRIMARY KEY,
        context TEXT NOT NULL,
        mailbox TEXT NOT NULL,
        folder TEXT NOT NULL,
        recording TEXT NOT NULL,
        format TEXT NOT NULL,
        caller_id TEXT NOT NULL,
        orig_time INTEGER NOT NULL,
        duration INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS voicemail_messages_box ON voicemail_messages (context, mailbox, folder);
      CREATE TABLE IF NOT EXISTS voicemail_passwords (
        context TEXT NOT NULL,
        mailbox TEXT NOT NULL,
        password TEXT NOT NULL,
        PRIMARY KEY (context, mailbox)
      );
    `);
  }

  add(m: VoicemailMessage): void {
    this.#db
      .prepare(
        'INSERT INTO voicemail_messages (id, context, mailbox, folder, recording, format, caller_id, orig_time, duration) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(m.id, m.context, m.mailbox, m.folder, m.recording, m.format, m.callerId, m.origTime, m.durationSeconds);
  }

  list(context: string, mailbox: string, folder?: VoicemailFolder): VoicemailMessage[] {
    const rows =
      folder === undefined
        ? this.#db
            .prepare<[string, string], MessageRow>(
              'SELECT * FROM voicemail_messages WHERE context = ? AND mailbox = ? ORDER BY orig_time, id',
            )
            .all(context, mailbox)
        : this.#db
            .prepare<[string, string, string], MessageRow>(
              'SELECT * FROM voicemail_messages WHERE context = ? AND mailbox = ? AND folder = ? ORDER BY orig_time, id',
            )
            .all(context, mailbox, folder);
    return rows.map((r) => ({
      id: r.id,
      context: r.context,
      mailbox: r.mailbox,
      folder: r.folder as VoicemailFolder,
      recording: r.recording,
      format: r.format,
      callerId: r.caller_id,
      origTime: r.orig_time,
      durationSeconds: r.duration,
    }));
  }

  move(id: string, folder: VoicemailFolder, recording: string): void {
    this.#db.prepare('UPDATE voicemail_messages SET folder = ?, recording = ? WHERE id = ?').run(folder, recording, id);
  }

  remove(id: string): void {
    this.#db.prepare('DELETE FROM voicemail_messages WHERE id = ?').run(id);
  }

  password(context: string, mailbox: string): string | undefined {
    return this.#db
      .prepare<[string, string], { password: string }>('SELECT password FROM voicemail_passwords WHERE context = ? AND mailbox = ?')
      .get(context, mailbox)?.password;
  }

  setPassword(context: string, mailbox: string, password: string): void {
    this.#db
      .prepare(
        'INSERT INTO voicemail_passwords (context, mailbox, password) VALUES (?, ?, ?) ON CONFLICT (context, mailbox) DO UPDATE SET password = excluded.password',
      )
      .run(context, mailbox, password);
  }
}
