/**
 * Dialplan, modules, logger, channels, bridges and CDRs: `dialplan show|reload`, `module reload`,
 * `logger reload|rotate|show channels`, `channel request hangup`, `bridge show all`, `cdr show`.
 */
import { CoreError } from '@switchboard/core';
import { type ConsoleCommands, ConsoleUsageError } from './registry.js';
import type { ConsoleServices } from './services.js';
import { clock, count, table } from './table.js';

const CDR_DEFAULT_COUNT = 10;
const CDR_MAX_COUNT = 1000;

export function registerAdminCommands(commands: ConsoleCommands, services: ConsoleServices): void {
  const { core } = services;
  const contextNames = () => [...new Set(core.dialplan.contexts.map((c) => c.name))];

  commands.register({
    words: ['dialplan', 'show'],
    args: '[context]',
    summary: 'Show the dialplan, or one context of it',
    completeArg: (i) => (i === 0 ? contextNames() : []),
    run: (args) => {
      if (args.length > 1) throw new ConsoleUsageError();
      // `dialplan show 200@from-internal` shows one extension, as in the original.
      const [extenWanted, contextWanted] = (args[0] ?? '').includes('@') ? (args[0] as string).split('@') : [undefined, args[0]];
      const contexts = core.dialplan.contexts.filter(
        (c) => contextWanted === undefined || contextWanted === '' || c.name === contextWanted,
      );
      if (contexts.length === 0) return `There is no existence of '${contextWanted}' context`;
      const out: string[] = [];
      let extensions = 0;
      let priorities = 0;
      for (const context of contexts) {
        out.push(`[ Context '${context.name}' created by 'pbx_config' ]`);
        for (const extension of context.extensions) {
          if (extenWanted !== undefined && extension.pattern !== extenWanted) continue;
          extensions += 1;
          extension.priorities.forEach((p, i) => {
            priorities += 1;
            const head = i === 0 ? `  '${extension.pattern}' =>` : '';
            const label = p.label ? `(${p.label})` : '';
            out.push(
              `${head.padEnd(22)}${`${p.priority}.${label}`.padEnd(6)} ${p.app}(${p.appData})`.padEnd(60) +
                `[${p.file.split('/').pop()}:${p.line}]`,
            );
          });
        }
        for (const [exten, devices] of Object.entries(context.hints ?? {}))
          out.push(`  '${exten}' =>`.padEnd(22) + `hint: ${devices.join('&')}`);
        for (const include of context.includes) out.push(`  Include =>`.padEnd(22) + `'${include}'`);
        out.push('');
      }
      out.push(
        `-= ${count(extensions, 'extension')} (${count(priorities, 'priority', 'priorities')}) in ${count(contexts.length, 'context')}. =-`,
      );
      return out.join('\n');
    },
  });

  commands.register({
    words: ['dialplan', 'reload'],
    summary: 'Reload extensions.conf (channels in a call keep their step)',
    run: async () => {
      await core.modules.reload('pbx_config');
      return 'Dialplan reloaded.';
    },
  });

  commands.register({
    words: ['module', 'reload'],
    args: '<module name>',
    summary: 'Reload a module (pbx_config, logger, res_mwi_external, …)',
    completeArg: (i) => (i === 0 ? core.modules.list().map((m) => m.name) : []),
    run: async (args) => {
      if (args.length !== 1) throw new ConsoleUsageError();
      const name = args[0] as string;
      try {
        if (name === 'logger') await services.reloadLogger();
        else await core.modules.reload(name);
      } catch (err) {
        if (err instanceof CoreError) return `Module '${name}' could not be reloaded: ${err.message}`;
        throw err;
      }
      return `Module '${name}' reloaded successfully.`;
    },
  });

  commands.register({
    words: ['logger', 'reload'],
    summary: 'Re-read logger.conf (console levels, log files, rotatestrategy)',
    run: async () => {
      await services.reloadLogger();
      return `Logger reloaded.\n${loggerChannels(services)}`;
    },
  });

  commands.register({
    words: ['logger', 'rotate'],
    summary: 'Rotate every log file by the rotatestrategy of logger.conf',
    run: () => {
      if (!core.logChannels) return 'No log channels are configured.';
      core.logChannels.rotateAll();
      return `Log files rotated (${core.logChannels.rotateStrategy}).`;
    },
  });

  commands.register({
    words: ['logger', 'show', 'channels'],
    summary: 'List the log channels and their levels',
    run: () => loggerChannels(services),
  });

  commands.register({
    words: ['channel', 'request', 'hangup'],
    args: '<channel name|all>',
    summary: 'Hang up a channel (by name or id), or all of them',
    completeArg: (i) => (i === 0 ? ['all', ...core.channels.list().map((c) => c.name)] : []),
    run: async (args) => {
      if (args.length !== 1) throw new ConsoleUsageError();
      const wanted = args[0] as string;
      const channels =
        wanted.toLowerCase() === 'all' ? core.channels.list() : core.channels.list().filter((c) => c.name === wanted || c.id === wanted);
      if (channels.length === 0) return `${wanted} is not a known channel`;
      await Promise.allSettled(channels.map((c) => c.hangup()));
      return channels.map((c) => `Requested Hangup on channel '${c.name}'`).join('\n');
    },
  });

  commands.register({
    words: ['bridge', 'show', 'all'],
    summary: 'List all bridges',
    run: () => {
      const bridges = core.bridges.list().map((b) => b.snapshot());
      const rows = bridges.map((b) => [
        b.id,
        String(b.channels.length),
        b.bridge_type,
        b.technology,
        b.bridge_class,
        b.name,
        clock((Date.now() - Date.parse(b.creationtime.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'))) / 1000),
      ]);
      return `${table(['Bridge-ID', 'Chans', 'Type', 'Technology', 'Class', 'Name', 'Duration'], rows)}\n${count(bridges.length, 'active bridge')}`;
    },
  });

  commands.register({
    words: ['cdr', 'show'],
    args: '[count]',
    summary: `Show the most recent call detail records (default ${CDR_DEFAULT_COUNT})`,
    run: async (args) => {
      const n = args[0] === undefined ? CDR_DEFAULT_COUNT : Number(args[0]);
      if (args.length > 1 || !Number.isInteger(n) || n < 1 || n > CDR_MAX_COUNT) throw new ConsoleUsageError();
      const records = await services.recentCdrs(n);
      if (records.length === 0) return 'No call detail records.';
      const rows = records.map((r) => [
        r.start.toISOString().replace('T', ' ').slice(0, 19),
        r.src,
        r.dst,
        r.dcontext,
        r.channel,
        r.dstchannel,
        r.lastapp,
        String(r.duration),
        String(r.billsec),
        r.disposition,
      ]);
      return table(['Start', 'Src', 'Dst', 'Context', 'Channel', 'DstChannel', 'LastApp', 'Duration', 'Billsec', 'Disposition'], rows);
    },
  });
}

function loggerChannels(services: ConsoleServices): string {
  const channels = services.core.logChannels?.list() ?? [];
  if (channels.length === 0) return 'No log channels.';
  return table(
    ['Channel', 'Type', 'Status', 'Configuration'],
    channels.map((c) => [c.channel, c.type, c.status, c.configuration.trim()]),
  );
}
