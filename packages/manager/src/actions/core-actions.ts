/**
 * Actions about the server as a whole: CoreStatus, CoreShowChannels, Status, Command, Reload and
 * ModuleLoad (alias ModuleReload).
 */
import { type Channel, CoreError } from '@switchboard/core';
import { channelFields, clockDuration } from '../fields.js';
import type { Field } from '../wire.js';
import { type ActionContext, type ActionDefinition, ActionError, type Reply, message, required, success } from './types.js';

/** Module name under which Reload re-reads manager.conf. */
const MANAGER_MODULE = 'manager';

function dateAndTime(date: Date): [string, string] {
  const iso = date.toISOString();
  return [iso.slice(0, 10), iso.slice(11, 19)];
}

function bridgeIdOf(ctx: ActionContext, channel: Channel): string {
  return ctx.services.core.bridges.bridgeOf(channel.id)?.id ?? '';
}

/** `Channel:` given: that channel (by name or id), 404-like error otherwise; absent: all. */
function channelsNamed(ctx: ActionContext, name: string | undefined): Channel[] {
  const all = ctx.services.core.channels.list();
  if (name === undefined || name.trim() === '' || name.trim().toLowerCase() === 'all') return all;
  const found = findChannel(ctx, name.trim());
  return [found];
}

/** A live channel by its name (`SIP/alice-00000001`) or its unique id. */
export function findChannel(ctx: ActionContext, nameOrId: string): Channel {
  const { channels } = ctx.services.core;
  const byId = channels.get(nameOrId);
  if (byId) return byId;
  const wanted = nameOrId.toLowerCase();
  const byName = channels.list().find((c) => c.name.toLowerCase() === wanted);
  if (!byName) throw new ActionError('No such channel');
  return byName;
}

function fieldsOf(ctx: ActionContext, channel: Channel): Field[] {
  return channelFields(channel.snapshot(), ctx.services.linkedId(channel.id));
}

export function coreActions(): ActionDefinition[] {
  return [
    {
      name: 'CoreStatus',
      privilege: ['system', 'reporting'],
      run: ({ services }) => {
        const [startDate, startTime] = dateAndTime(services.core.system.startedAt);
        const [reloadDate, reloadTime] = dateAndTime(services.core.system.lastReloadAt);
        return success([
          ['CoreStartupDate', startDate],
          ['CoreStartupTime', startTime],
          ['CoreReloadDate', reloadDate],
          ['CoreReloadTime', reloadTime],
          ['CoreCurrentCalls', String(services.core.channels.size)],
        ]);
      },
    },
    {
      name: 'CoreShowChannels',
      privilege: ['system', 'reporting'],
      run: (ctx): Reply => ({
        kind: 'list',
        message: 'Channels will follow',
        complete: 'CoreShowChannelsComplete',
        items: ctx.services.core.channels.list().map((channel) => ({
          name: 'CoreShowChannel',
          fields: [
            ...fieldsOf(ctx, channel),
            ['BridgeId', bridgeIdOf(ctx, channel)],
            ['Application', channel.dialplan.app_name],
            ['ApplicationData', channel.dialplan.app_data],
            ['Duration', clockDuration(Date.now() - channel.createdAt.getTime())],
          ],
        })),
      }),
    },
    {
      name: 'Status',
      privilege: ['system', 'call', 'reporting'],
      run: (ctx): Reply => {
        const variables = (ctx.message.get('Variables') ?? '')
          .split(',')
          .map((v) => v.trim())
          .filter((v) => v !== '');
        return {
          kind: 'list',
          message: 'Channel status will follow',
          complete: 'StatusComplete',
          items: channelsNamed(ctx, ctx.message.get('Channel')).map((channel) => ({
            name: 'Status',
            fields: [
              ...fieldsOf(ctx, channel),
              ['Type', channel.technology],
              ['DNID', ''],
              ['EffectiveConnectedLineNum', channel.connected.number || '<unknown>'],
              ['EffectiveConnectedLineName', channel.connected.name || '<unknown>'],
              ['TimeToHangup', '0'],
              ['BridgeID', bridgeIdOf(ctx, channel)],
              ['Application', channel.dialplan.app_name],
              ['Data', channel.dialplan.app_data],
              ['Seconds', String(Math.floor((Date.now() - channel.createdAt.getTime()) / 1000))],
              ...variables.map((name) => ['Variable', `${name}=${channel.getVariable(name) ?? ''}`] as const),
            ],
          })),
        };
      },
    },
    {
      name: 'Command',
      privilege: ['command'],
      run: async ({ message: msg, services }) => {
        const line = required(msg, 'Command', 'Command not specified');
        if (!services.commands) throw new ActionError('No console commands are available');
        const output = await services.commands.run(line);
        const lines = output.replace(/\r/g, '').replace(/\n+$/, '').split('\n');
        return success([['Message', 'Command output follows'], ...lines.map((l) => ['Output', l] as const)]);
      },
    },
    {
      name: 'Reload',
      privilege: ['system', 'config'],
      run: async ({ message: msg, services }) => {
        const module = msg.get('Module')?.trim();
        if (module === undefined || module === '') {
          services.reloadConfig();
          for (const m of services.core.modules.list()) {
            if (m.status !== 'Running') continue;
            try {
              await services.core.modules.reload(m.name);
            } catch (err) {
              if (!(err instanceof CoreError)) throw err;
            }
          }
          return message('Module Reloaded');
        }
        await reloadModule(services, module);
        return message('Module Reloaded');
      },
    },
    ...['ModuleLoad', 'ModuleReload'].map(
      (name): ActionDefinition => ({
        name,
        privilege: ['system'],
        run: async ({ message: msg, services }) => {
          const module = msg.get('Module')?.trim() ?? '';
          const loadType = (msg.get('LoadType') ?? (name === 'ModuleReload' ? 'reload' : '')).trim().toLowerCase();
          if (loadType === 'reload') {
            if (module === '') {
              services.reloadConfig();
              services.core.reloadDialplan();
            } else await reloadModule(services, module);
            return message('Module reloaded.');
          }
          if (module === '') throw new ActionError('Need module name');
          if (loadType === 'load') {
            await services.core.modules.load(module.replace(/\.so$/, ''));
            return message('Module loaded.');
          }
          if (loadType === 'unload') {
            await services.core.modules.unload(module.replace(/\.so$/, ''));
            return message('Module unloaded.');
          }
          throw new ActionError('Incomplete ModuleLoad action.');
        },
      }),
    ),
  ];
}

async function reloadModule(services: ActionContext['services'], module: string): Promise<void> {
  const name = module.replace(/\.so$/, '');
  if (name === MANAGER_MODULE) {
    services.reloadConfig();
    return;
  }
  try {
    await services.core.modules.reload(name);
  } catch (err) {
    if (err instanceof CoreError && err.code === 'not_found') throw new ActionError('No such module');
    throw err;
  }
}
