/**
 * A password changed from the phone is written back into voicemail.conf as the original does:
 * the mailbox's line in its context is rewritten with the new password in the first field and
 * every other field, comment and line of the file left as it was.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const SECTION = /^\s*\[([^\]]+)\]/;

/** The file's text with the mailbox line's password replaced; undefined when the line is not there. */
export function withMailboxPassword(text: string, context: string, mailbox: string, password: string): string | undefined {
  const lines = text.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const header = SECTION.exec(line);
    if (header) {
      section = header[1].trim();
      continue;
    }
    if (section !== context) continue;
    // `1001 => 4242,Olive Owner,…` (or `=`); a `;` comment after the value stays as it is.
    const entry = /^(\s*)([^\s=;]+)(\s*=>?\s*)([^,;\r]*)(.*)$/.exec(line);
    if (!entry || entry[2] !== mailbox) continue;
    lines[i] = `${entry[1]}${entry[2]}${entry[3]}${password}${entry[5]}`;
    return lines.join('\n');
  }
  return undefined;
}

/** Rewrites the file in place (through a temporary file, so a crash never leaves half a file). */
export function writeMailboxPassword(file: string, context: string, mailbox: string, password: string): boolean {
  const updated = withMailboxPassword(readFileSync(file, 'utf8'), context, mailbox, password);
  if (updated === undefined) return false;
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, updated);
  renameSync(temporary, file);
  return true;
}
