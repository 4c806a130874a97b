/** `core show …`, `core set verbose`, `core stop`: the server as a whole. */
import os from 'node:os';
import { type Channel, SWITCHBOARD_VERSION } from '@switchboard/core';
import { type ConsoleCommands, ConsoleUsageError } from './registry.js';
import type { ConsoleServices } from './services.js';
import { clock, count, fields, spokenDuration, table } from './table.js';

/** `200@from-internal:1`, the original's Location column. */
function location(channel: Channel): string {
  const d = channel.dialplan;
  return d.exten === '' ? '(None)' : `${d.exten}@${d.context}:${d.priority}`;
}

function application(channel: Channel): string {
  const d = channel.dialplan;
  return d.app_name === '' ? '(None)' : `${d.app_name}(${d.app_data})`;
}

function seconds(channel: Channel): number {
  return (Date.now() - channel.createdAt.getTime()) / 1000;
}

/** Calls as the original counts them: a bridge is one call, a channel outside any bridge another. */
export function activeCalls(services: ConsoleServices): number {
  const { core } = services;
  const bridged = new Set<string>();
  let calls = 0;
  for (const bridge of core.bridges.list()) {
    const members = bridge.snapshot().channels;
    if (members.length === 0) continue;
    calls += 1;
    for (const id of members) bridged.add(id);
  }
  for (const channel of core.channels.list()) if (!bridged.has(channel.id)) calls += 1;
  return calls;
}

export function registerCoreCommands(commands: ConsoleCommands, services: ConsoleServices): void {
  const { core } = services;
  const callSummary = () =>
    [count(activeCalls(services), 'active call'), count(services.callsProcessed(), 'call processed', 'calls processed')].join('\n');

  commands.register({
    words: ['core', 'show', 'channels'],
    args: '[concise|verbose]',
    summary: 'Display information on channels',
    completeArg: (i) => (i === 0 ? ['concise', 'verbose'] : []),
    run: (args) => {
      const mode = args[0]?.toLowerCase();
      if (args.length > 1 || (mode !== undefined && mode !== 'concise' && mode !== 'verbose')) throw new ConsoleUsageError();
      const channels = core.channels.list();
      const bridgeOf = (c: Channel) => core.bridges.bridgeOf(c.id)?.id ?? '';
      if (mode === 'concise') {
        // The original's `!`-separated fields, for scripts.
        return channels
          .map((c) =>
            [
              c.name,
              c.dialplan.context,
              c.dialplan.exten,
              String(c.dialplan.priority),
              c.state,
              c.dialplan.app_name,
              c.dialplan.app_data,
              c.caller.number,
              c.accountcode,
              '',
              '3',
              String(Math.floor(seconds(c))),
              bridgeOf(c),
              c.id,
            ].join('!'),
          )
          .join('\n');
      }
      const body =
        mode === 'verbose'
          ? table(
              [
                'Channel',
                'Context',
                'Extension',
                'Prio',
                'State',
                'Application',
                'Data',
                'CallerID',
                'Duration',
                'Accountcode',
                'BridgeID',
              ],
              channels.map((c) => [
                c.name,
                c.dialplan.context,
                c.dialplan.exten,
                String(c.dialplan.priority),
                c.state,
                c.dialplan.app_name,
                c.dialplan.app_data,
                c.caller.number,
                clock(seconds(c)),
                c.accountcode,
                bridgeOf(c),
              ]),
            )
          : table(
              ['Channel', 'Location', 'State', 'Application(Data)'],
              channels.map((c) => [c.name, location(c), c.state, application(c)]),
            );
      return `${body}\n${count(channels.length, 'active channel')}\n${callSummary()}`;
    },
  });

  commands.register({
    words: ['core', 'show', 'calls'],
    summary: 'Display information on calls',
    run: () => callSummary(),
  });

  commands.register({
    words: ['core', 'show', 'uptime'],
    args: '[seconds]',
    summary: 'Show uptime information',
    completeArg: (i) => (i === 0 ? ['seconds'] : []),
    run: (args) => {
      const up = (Date.now() - core.system.startedAt.getTime()) / 1000;
      const reload = (Date.now() - core.system.lastReloadAt.getTime()) / 1000;
      if (args[0]?.toLowerCase() === 'seconds') return `System uptime: ${Math.floor(up)}\nLast reload: ${Math.floor(reload)}`;
      if (args.length > 0) throw new ConsoleUsageError();
      return `System uptime: ${spokenDuration(up)}\nLast reload: ${spokenDuration(reload)}`;
    },
  });

  commands.register({
    words: ['core', 'show', 'version'],
    summary: 'Display version info',
    run: () => `Switchboard ${SWITCHBOARD_VERSION} on ${os.machine()} running ${os.type()} ${os.release()} (Node.js ${process.version})`,
  });

  commands.register({
    words: ['core', 'show', 'settings'],
    summary: 'Show some core settings',
    run: () => {
      const config = core.config;
      return `\nPBX Core settings\n-----------------\n${fields([
        ['Version', SWITCHBOARD_VERSION],
        ['System name', config.general.systemName],
        ['Entity ID', config.general.entityId],
        ['Default language', config.general.defaultLanguage],
        ['Root console verbosity', String(services.verbosity.level)],
        ['Startup time', core.system.startedAt.toISOString()],
        ['Last reload time', core.system.lastReloadAt.toISOString()],
        ['Media workers', config.general.mediaWorkers > 0 ? String(config.general.mediaWorkers) : 'one per spare core'],
        ['RTP port range', `${config.rtp.rtpStart}-${config.rtp.rtpEnd}`],
        ['HTTP', config.http.enabled ? `${config.http.bindAddress}:${config.http.bindPort}` : 'disabled'],
        ['SIP message trace', services.sipTrace.describe()],
        ['Configuration directory', config.confDir],
        ['Data directory', services.paths.data],
        ['Log directory', services.paths.log],
        ['Control socket', services.paths.controlSocket],
        ['Sound directories', config.general.soundDirs.join(', ')],
        ['Recording directory', config.general.recordingDir],
      ])}`;
    },
  });

  commands.register({
    words: ['core', 'set', 'verbose'],
    args: '<level>',
    summary: 'Set level of verbose chatter (3 and above: a line per dialplan step and call event)',
    run: (args) => {
      const level = Number(args[0]);
      if (args.length !== 1 || !Number.isInteger(level) || level < 0) throw new ConsoleUsageError();
      const was = services.verbosity.level;
      services.verbosity.level = level;
      if (was === level) return `Verbosity is at least ${level}`;
      return level === 0 ? 'Verbosity is now OFF' : `Verbosity was ${was} and is now ${level}`;
    },
  });

  commands.register({
    words: ['core', 'stop'],
    args: 'gracefully|now',
    summary: 'Shut down the server (gracefully: refuse new calls, stop once the last call has ended)',
    completeArg: (i) => (i === 0 ? ['gracefully', 'now'] : []),
    run: (args) => {
      const mode = args[0]?.toLowerCase();
      if (args.length !== 1 || (mode !== 'now' && mode !== 'gracefully')) throw new ConsoleUsageError();
      services.stop(mode);
      return mode === 'now'
        ? 'Shutting down now'
        : `Shutting down once no call is left (${count(core.channels.list().length, 'channel')} up)`;
    },
  });

  commands.register({
    words: ['core', 'show', 'help'],
    args: '[command words]',
    summary: 'Display help list, or specific help on a command',
    run: (args) => {
      const wanted = args.map((a) => a.toLowerCase());
      const shown = commands.list().filter((c) => wanted.every((w, i) => (c.words[i] ?? '').startsWith(w)));
      if (shown.length === 0) return `No such command '${args.join(' ')}'.`;
      return table(
        ['Command', 'Summary'],
        shown.map((c) => [commands.usage(c), c.summary]),
      );
    },
  });
}
