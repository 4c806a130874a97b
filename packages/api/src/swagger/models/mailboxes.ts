/** Models of mailboxes.json (reference mailboxes.md). */
import type { MailboxSnapshot } from '@switchboard/core';
import type { ModelFor } from '../types.js';

export const MailboxModel = {
  id: 'Mailbox',
  description: 'Represents the state of a mailbox.',
  properties: {
    name: { type: 'string', description: 'Name of the mailbox.', required: true },
    old_messages: { type: 'int', description: 'Count of old messages in the mailbox.', required: true },
    new_messages: { type: 'int', description: 'Count of new messages in the mailbox.', required: true },
  },
} as const satisfies ModelFor<MailboxSnapshot>;

export const MAILBOX_MODELS = [MailboxModel];
