/**
 * The voicemail family over core's voicemail service (voicemail.conf): VoicemailUsersList lists
 * the mailboxes with their counts as VoicemailUserEntry items, VoicemailRefresh publishes the
 * mailboxes' counts again (MessageWaiting to manager clients, the lamps of subscribed phones).
 */
import type { ActionDefinition, Reply } from './types.js';
import { message, success } from './types.js';

export function voicemailActions(): ActionDefinition[] {
  return [
    {
      name: 'VoicemailUsersList',
      privilege: ['call', 'reporting'],
      run: (ctx): Reply => {
        const voicemail = ctx.services.core.voicemail;
        const config = voicemail.config;
        const boxes = [...config.mailboxes.values()];
        if (boxes.length === 0) return message('There are no voicemail users currently defined.');
        return {
          kind: 'list',
          message: 'Voicemail user list will follow',
          complete: 'VoicemailUsersListComplete',
          // The original's names and order; options Switchboard has no counterpart for are left out.
          items: boxes.map((box) => ({
            name: 'VoicemailUserEntry',
            fields: [
              ['VMContext', box.context],
              ['VoiceMailbox', box.mailbox],
              ['Fullname', box.fullName],
              ['Email', box.email],
              ['Pager', box.pager],
              ['ServerEmail', config.serverEmail],
              ['FromString', config.fromString],
              ['AttachMessage', box.attach ? 'Yes' : 'No'],
              ['AttachmentFormat', config.format],
              ['MaxMessageCount', String(config.maxMessages)],
              ['MaxMessageLength', String(config.maxSeconds)],
              ['NewMessageCount', String(voicemail.count(box, 'INBOX') + voicemail.count(box, 'Urgent'))],
              ['OldMessageCount', String(voicemail.count(box, 'Old'))],
            ],
          })),
        };
      },
    },
    {
      name: 'VoicemailRefresh',
      privilege: ['user'],
      run: async (ctx): Promise<Reply> => {
        const voicemail = ctx.services.core.voicemail;
        const context = ctx.message.get('Context')?.trim() ?? '';
        const mailbox = ctx.message.get('Mailbox')?.trim() ?? '';
        for (const box of voicemail.config.mailboxes.values()) {
          if ((context === '' || box.context === context) && (mailbox === '' || box.mailbox === mailbox))
            await voicemail.publishCounts(box);
        }
        return success([]);
      },
    },
  ];
}
