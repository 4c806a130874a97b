/**
 * Actions on stored and derived state: the AstDB (DBGet, DBPut, DBDel, DBDelTree), extension and
 * device states (ExtensionState, ExtensionStateList, DeviceStateList) and mailboxes (MailboxCount, MailboxStatus).
 */
import { CoreError } from '@switchboard/core';
import { extensionState } from '../hint-state.js';
import type { Field } from '../wire.js';
import { type ActionContext, type ActionDefinition, ActionError, type Reply, message, required, success } from './types.js';

function astdb(ctx: ActionContext) {
  const store = ctx.services.store;
  if (!store) throw new ActionError('Database is not available');
  return store.astdb;
}

/** Counts of a mailbox; one that does not exist counts zero, as in the original. */
async function mailboxCounts(ctx: ActionContext, name: string): Promise<{ newMessages: number; oldMessages: number }> {
  try {
    const mailbox = await ctx.services.core.mailboxes.get(name);
    return { newMessages: mailbox.new_messages, oldMessages: mailbox.old_messages };
  } catch (err) {
    if (err instanceof CoreError && err.code === 'not_found') return { newMessages: 0, oldMessages: 0 };
    throw err;
  }
}

export function stateActions(): ActionDefinition[] {
  return [
    {
      name: 'DBGet',
      privilege: ['system', 'reporting'],
      run: async (ctx): Promise<Reply> => {
        const family = required(ctx.message, 'Family', 'No family specified.');
        const key = required(ctx.message, 'Key', 'No key specified.');
        const value = await astdb(ctx).get(family, key);
        if (value === undefined) throw new ActionError('Database entry not found');
        return {
          kind: 'list',
          message: 'Result will follow',
          complete: 'DBGetComplete',
          items: [
            {
              name: 'DBGetResponse',
              fields: [
                ['Family', family],
                ['Key', key],
                ['Val', value],
              ],
            },
          ],
        };
      },
    },
    {
      name: 'DBPut',
      privilege: ['system'],
      run: async (ctx) => {
        const family = required(ctx.message, 'Family', 'No family specified');
        const key = required(ctx.message, 'Key', 'No key specified');
        await astdb(ctx).put(family, key, ctx.message.get('Val') ?? '');
        return message('Updated database successfully');
      },
    },
    {
      name: 'DBDel',
      privilege: ['system'],
      run: async (ctx) => {
        const family = required(ctx.message, 'Family', 'No family specified.');
        const key = required(ctx.message, 'Key', 'No key specified.');
        if (!(await astdb(ctx).delete(family, key))) throw new ActionError('Database entry not found');
        return message('Key deleted successfully');
      },
    },
    {
      name: 'DBDelTree',
      privilege: ['system'],
      run: async (ctx) => {
        const family = required(ctx.message, 'Family', 'No family specified.');
        const deleted = await astdb(ctx).deleteTree(family, ctx.message.get('Key')?.trim());
        if (deleted === 0) throw new ActionError('Database entry not found');
        return message('Key tree deleted successfully');
      },
    },
    {
      name: 'ExtensionState',
      privilege: ['call', 'reporting'],
      run: async (ctx) => {
        const exten = required(ctx.message, 'Exten', 'Extension not specified');
        const context = ctx.message.get('Context')?.trim() || 'default';
        const state = await extensionState(ctx.services.core, context, exten);
        return success([
          ['Message', 'Extension Status'],
          ['Exten', exten],
          ['Context', context],
          ['Hint', state?.hint ?? ''],
          ['Status', String(state?.status ?? -1)],
          ['StatusText', state?.statusText ?? 'Unknown'],
        ]);
      },
    },
    {
      name: 'ExtensionStateList',
      privilege: ['call', 'reporting'],
      run: async (ctx): Promise<Reply> => {
        const { core } = ctx.services;
        const hints = core.config.dialplan.contexts.flatMap((c) => Object.keys(c.hints ?? {}).map((exten) => ({ context: c.name, exten })));
        const states = await Promise.all(hints.map(({ context, exten }) => extensionState(core, context, exten)));
        return {
          kind: 'list',
          message: 'Extension Statuses will follow',
          complete: 'ExtensionStateListComplete',
          items: states.flatMap((state) =>
            state
              ? [
                  {
                    name: 'ExtensionStatus',
                    fields: [
                      ['Exten', state.exten],
                      ['Context', state.context],
                      ['Hint', state.hint],
                      ['Status', String(state.status)],
                      ['StatusText', state.statusText],
                    ] as Field[],
                  },
                ]
              : [],
          ),
        };
      },
    },
    {
      name: 'DeviceStateList',
      privilege: ['call', 'reporting'],
      run: async (ctx): Promise<Reply> => {
        const { core } = ctx.services;
        const controlled = await core.deviceStates.list().catch(() => []);
        const endpoints = core.endpoints.list().flatMap((e) => {
          const derived = core.deviceStates.endpointDeviceState(`${e.technology}/${e.resource}`);
          return derived ? [derived] : [];
        });
        return {
          kind: 'list',
          message: 'Device State Changes will follow',
          complete: 'DeviceStateListComplete',
          items: [...endpoints, ...controlled].map((d) => ({
            name: 'DeviceStateChange',
            fields: [
              ['Device', d.name],
              ['State', d.state],
            ],
          })),
        };
      },
    },
    {
      name: 'MailboxCount',
      privilege: ['call', 'reporting'],
      run: async (ctx) => {
        const mailbox = required(ctx.message, 'Mailbox', 'Mailbox not specified');
        const counts = await mailboxCounts(ctx, mailbox);
        return success([
          ['Message', 'Mailbox Message Count'],
          ['Mailbox', mailbox],
          ['UrgMessages', '0'],
          ['NewMessages', String(counts.newMessages)],
          ['OldMessages', String(counts.oldMessages)],
        ]);
      },
    },
    {
      name: 'MailboxStatus',
      privilege: ['call', 'reporting'],
      run: async (ctx) => {
        const mailbox = required(ctx.message, 'Mailbox', 'Mailbox not specified');
        const counts = await mailboxCounts(ctx, mailbox);
        return success([
          ['Message', 'Mailbox Status'],
          ['Mailbox', mailbox],
          ['Waiting', counts.newMessages > 0 ? '1' : '0'],
        ]);
      },
    },
  ];
}
