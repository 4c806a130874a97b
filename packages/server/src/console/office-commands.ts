/**
 * The office features' console views, in the original's wording: `queue show [queue]`,
 * `confbridge list [conference]`, `voicemail show users [for <context>]`.
 */
import { type ConsoleCommands, ConsoleUsageError } from './registry.js';
import type { ConsoleServices } from './services.js';
import { count, table } from './table.js';

/** The original's member status numbers (AST_DEVICE_*) as its `queue show` words them. */
const MEMBER_STATUS = ['Unknown', 'Not in use', 'In use', 'Busy', 'Invalid', 'Unavailable', 'Ringing', 'Ring+Inuse', 'On Hold'];

export function registerOfficeCommands(commands: ConsoleCommands, services: ConsoleServices): void {
  const { core } = services;

  commands.register({
    words: ['queue', 'show'],
    args: '[queue]',
    summary: 'Show the queues, their members and waiting callers',
    completeArg: (i) => (i === 0 ? core.queues.list().map((q) => q.name) : []),
    run: (args) => {
      if (args.length > 1) throw new ConsoleUsageError();
      const queues = core.queues.list().filter((q) => args[0] === undefined || q.name === args[0]);
      if (queues.length === 0) return args[0] === undefined ? 'No queues.' : `No such queue: ${args[0]}.`;
      const out: string[] = [];
      for (const queue of queues) {
        out.push(
          `${queue.name} has ${count(queue.callers.length, 'call')} (max unlimited) in '${queue.strategy}' strategy ` +
            `(${queue.holdtime}s holdtime, ${queue.talktime}s talktime), C:${queue.completed}, A:${queue.abandoned}`,
        );
        if (queue.members.length === 0) out.push('   No Members');
        else {
          out.push('   Members: ');
          for (const m of queue.members) {
            const paused = m.paused ? ` (paused${m.paused_reason !== '' ? `:${m.paused_reason}` : ''})` : '';
            const taken = m.calls_taken === 0 ? 'has taken no calls yet' : `has taken ${count(m.calls_taken, 'call')}`;
            out.push(`      ${m.name} (${m.interface}) (${m.membership})${paused} (${MEMBER_STATUS[m.status] ?? 'Unknown'}) ${taken}`);
          }
        }
        if (queue.callers.length === 0) out.push('   No Callers');
        else {
          out.push('   Callers: ');
          for (const c of queue.callers) out.push(`      ${c.position}. ${c.channel} (wait: ${formatWait(c.wait)})`);
        }
        out.push('');
      }
      return out.join('\n').trimEnd();
    },
  });

  commands.register({
    words: ['confbridge', 'list'],
    args: '[conference]',
    summary: 'List the conference bridges, or the participants of one',
    completeArg: (i) => (i === 0 ? core.conferences.list().map((c) => c.name) : []),
    run: (args) => {
      if (args.length > 1) throw new ConsoleUsageError();
      const conferences = core.conferences.list();
      if (args[0] === undefined) {
        return table(
          ['Conference Bridge Name', 'Users', 'Marked', 'Locked', 'Muted'],
          conferences.map((c) => [
            c.name,
            String(c.participants.length),
            String(c.participants.filter((p) => p.marked).length),
            c.locked ? 'Yes' : 'No',
            c.participants.length > 0 && c.participants.every((p) => p.muted) ? 'Yes' : 'No',
          ]),
        );
      }
      const conference = conferences.find((c) => c.name === args[0]);
      if (conference === undefined) return `No conference bridge named '${args[0]}' found!`;
      return table(
        ['Channel', 'Flags', 'User Profile', 'Bridge Profile', 'Muted'],
        conference.participants.map((p) => [
          p.channel,
          `${p.admin ? 'A' : ''}${p.marked ? 'M' : ''}`,
          p.user_profile,
          conference.bridge_profile,
          p.muted ? 'Yes' : 'No',
        ]),
      );
    },
  });

  commands.register({
    words: ['voicemail', 'show', 'users'],
    args: '[for <context>]',
    summary: 'List the mailboxes with their message counts',
    completeArg: (i) => (i === 0 ? ['for'] : i === 1 ? [...new Set(core.voicemail.list().map((m) => m.context))] : []),
    run: (args) => {
      if (args.length !== 0 && (args.length !== 2 || args[0] !== 'for')) throw new ConsoleUsageError();
      const context = args[1];
      const boxes = core.voicemail.list().filter((m) => context === undefined || m.context === context);
      if (boxes.length === 0)
        return context === undefined ? 'There are no voicemail users currently defined' : `No such voicemail context "${context}"`;
      const rows = boxes.map((m) => [m.context, m.mailbox, m.full_name, String(m.new_messages)]);
      const contexts = new Set(boxes.map((m) => m.context)).size;
      return `${table(['Context', 'Mbox', 'User', 'NewMsg'], rows)}\n${count(boxes.length, 'voicemail user')} configured in ${count(contexts, 'context')}`;
    },
  });
}

/** Seconds waiting as the original prints them: `1:05`. */
function formatWait(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
