/**
 * Where voicemail keeps what is not audio: each message's metadata (caller id, time, duration,
 * folder, recording name) and passwords changed from the phone. The audio itself is a stored
 * recording under the recording directory. SQLite in a running server (store/sqlite-voicemail.ts);
 * memory for a core built without a store.
 */
import type { VoicemailFolder } from './voicemail-config.js';

export interface VoicemailMessage {
  id: string;
  context: string;
  mailbox: string;
  folder: VoicemailFolder;
  /** The stored recording's name (without extension). */
  recording: string;
  format: string;
  callerId: string;
  /** Unix time in seconds, as the original's origtime. */
  origTime: number;
  durationSeconds: number;
}

export interface VoicemailStore {
  add(message: VoicemailMessage): void;
  /** A folder's messages, oldest first. */
  list(context: string, mailbox: string, folder?: VoicemailFolder): VoicemailMessage[];
  move(id: string, folder: VoicemailFolder, recording: string): void;
  remove(id: string): void;
  password(context: string, mailbox: string): string | undefined;
  setPassword(context: string, mailbox: string, password: string): void;
}

export class MemoryVoicemailStore implements VoicemailStore {
  readonly #messages = new Map<string, VoicemailMessage>();
  readonly #passwords = new Map<string, string>();

  add(message: VoicemailMessage): void {
    this.#messages.set(message.id, { ...message });
  }

  list(context: string, mailbox: string, folder?: VoicemailFolder): VoicemailMessage[] {
    return [...this.#messages.values()]
      .filter((m) => m.context === context && m.mailbox === mailbox && (folder === undefined || m.folder === folder))
      .sort((a, b) => a.origTime - b.origTime || a.id.localeCompare(b.id));
  }

  move(id: string, folder: VoicemailFolder, recording: string): void {
    const message = this.#messages.get(id);
    if (message) this.#messages.set(id, { ...message, folder, recording });
  }

  remove(id: string): void {
    this.#messages.delete(id);
  }

  password(context: string, mailbox: string): string | undefined {
    return this.#passwords.get(`${mailbox}@${context}`);
  }

  setPassword(context: string, mailbox: string, password: string): void {
    this.#passwords.set(`${mailbox}@${context}`, password);
  }
}
