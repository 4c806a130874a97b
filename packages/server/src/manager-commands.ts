/**
 * The console commands the manager's `Command` action runs, until the operator console's command
 * registry replaces this: `core show channels`, `core show uptime`, `core show version`.
 */
import { SWITCHBOARD_VERSION, type SwitchboardCore } from '@switchboard/core';
import type { CommandRunner } from '@switchboard/manager';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `1 hour, 2 minutes, 3 seconds` as the original prints uptimes. */
function spoken(ms: number): string {
  let seconds = Math.max(0, Math.floor(ms / 1000));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    const n = Math.floor(seconds / size);
    seconds -= n * size;
    if (n > 0) parts.push(plural(n, unit));
  }
  parts.push(plural(seconds, 'second'));
  return parts.join(', ');
}

function showChannels(core: SwitchboardCore): string {
  const row = (a: string, b: string, c: string, d: string) => `${a.padEnd(30)} ${b.padEnd(25)} ${c.padEnd(7)} ${d}`;
  const channels = core.channels.list();
  const lines = [row('Channel', 'Location', 'State', 'Application(Data)')];
  for (const c of channels) {
    const location = `${c.dialplan.exten}@${c.dialplan.context}:${c.dialplan.priority}`;
    lines.push(row(c.name, location, c.state, c.dialplan.app_name ? `${c.dialplan.app_name}(${c.dialplan.app_data})` : '(None)'));
  }
  const calls = core.bridges.list().filter((b) => b.participants.size >= 2).length;
  lines.push(`${plural(channels.length, 'active channel')}`, `${plural(calls, 'active call')}`);
  return lines.join('\n');
}

export function managerCommands(core: SwitchboardCore): CommandRunner {
  return {
    run: async (line) => {
      const words = line.trim().toLowerCase().split(/\s+/).join(' ');
      switch (words) {
        case 'core show channels':
          return showChannels(core);
        case 'core show uptime':
          return [
            `System uptime: ${spoken(Date.now() - core.system.startedAt.getTime())}`,
            `Last reload: ${spoken(Date.now() - core.system.lastReloadAt.getTime())}`,
          ].join('\n');
        case 'core show version':
          return `Switchboard ${SWITCHBOARD_VERSION}`;
        default:
          return `No such command '${line.trim()}' (type 'core show help ${line.trim()}' for other possible commands)`;
      }
    },
  };
}
