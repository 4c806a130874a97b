/**
 * Actions on live calls: Hangup, Redirect (with ExtraChannel), Setvar, Getvar, BlindTransfer,
 * Atxfer, Bridge, PlayDTMF, SendText, UserEvent, MixMonitor and StopMixMonitor. Channels are named by their name
 * (`SIP/alice-00000001`) or their unique id.
 */
import {
  bridgeRecordTarget,
  type Channel,
  channelRecordTarget,
  CoreError,
  DEFAULT_DTMF_TIMING,
  type DialplanLocationRef,
  HANGUP_REASONS,
} from '@switchboard/core';
import { channelFields, type ManagerEvent } from '../fields.js';
import type { Field } from '../wire.js';
import { findChannel } from './core-actions.js';
import { type ActionContext, type ActionDefinition, ActionError, message, required, success } from './types.js';

/** Headers of UserEvent that are the action's own, not the event's. */
const USER_EVENT_OWN_HEADERS = new Set(['action', 'actionid', 'userevent']);

function channelArg(ctx: ActionContext, header = 'Channel'): Channel {
  return findChannel(ctx, required(ctx.message, header, header === 'Channel' ? 'No channel specified' : `${header} not specified`));
}

/** Context/Exten/Priority (a priority may be a label) checked against the dialplan. */
function location(ctx: ActionContext, prefix: '' | 'Extra', fallback?: DialplanLocationRef): DialplanLocationRef {
  const msg = ctx.message;
  const exten = msg.get(`${prefix}Exten`)?.trim() || fallback?.exten;
  const context = msg.get(`${prefix}Context`)?.trim() || fallback?.context;
  if (!exten) throw new ActionError('Exten not specified');
  if (!context) throw new ActionError('Context not specified');
  const priorityText = msg.get(`${prefix}Priority`)?.trim() ?? '';
  const runner = ctx.services.core.dialplanRunner;
  let priority: number;
  if (priorityText === '') priority = fallback?.priority ?? 1;
  else if (/^\d+$/.test(priorityText)) priority = Number(priorityText);
  else {
    const found = runner.findLabel(context, exten, priorityText);
    if (found === undefined || found === 0) throw new ActionError('Invalid priority');
    priority = found;
  }
  if (!runner.exists(context, exten, priority)) throw new ActionError('Extension does not exist.');
  return { context, exten, priority };
}

/** `/regex/` names every channel whose name matches; otherwise one channel. */
function channelsToHang(ctx: ActionContext): Channel[] {
  const name = required(ctx.message, 'Channel', 'No channel specified');
  const regex = /^\/(.*)\/$/.exec(name);
  if (!regex) return [findChannel(ctx, name)];
  let pattern: RegExp;
  try {
    pattern = new RegExp(regex[1] ?? '');
  } catch {
    throw new ActionError('Invalid regex');
  }
  return ctx.services.core.channels.list().filter((c) => pattern.test(c.name));
}

function parseCause(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return HANGUP_REASONS.normal;
  const cause = Number(text.trim());
  if (!Number.isInteger(cause) || cause < 0 || cause > 127) throw new ActionError('Invalid cause');
  return cause;
}

export function callActions(): ActionDefinition[] {
  /** MixMonitor recordings by channel id, for StopMixMonitor. */
  const mixMonitors = new Map<string, string>();
  return [
    {
      name: 'Hangup',
      privilege: ['system', 'call'],
      run: async (ctx) => {
        const cause = parseCause(ctx.message.get('Cause'));
        const channels = channelsToHang(ctx);
        for (const channel of channels) await channel.hangup(cause);
        return message('Channel Hungup', channels.length === 1 ? [] : [['Count', String(channels.length)]]);
      },
    },
    {
      name: 'Redirect',
      privilege: ['call'],
      run: async (ctx) => {
        const channel = channelArg(ctx);
        const target = location(ctx, '');
        const extraName = ctx.message.get('ExtraChannel')?.trim();
        const extra = extraName ? findChannel(ctx, extraName) : undefined;
        const extraTarget = extra ? location(ctx, 'Extra', target) : undefined;
        const redirect = ctx.services.core.dialplanRedirect;
        await redirect.redirect(channel, target);
        if (!extra || !extraTarget) return message('Redirect successful');
        await redirect.redirect(extra, extraTarget);
        return message('Dual Redirect successful');
      },
    },
    {
      name: 'Setvar',
      privilege: ['call'],
      run: async (ctx) => {
        const name = required(ctx.message, 'Variable', 'No variable specified');
        const value = ctx.message.get('Value') ?? '';
        const channelName = ctx.message.get('Channel')?.trim();
        const { core } = ctx.services;
        if (!channelName) await core.globalVariables.set(name, value);
        else await core.channelVariables.set(findChannel(ctx, channelName), { name, value, reportEvents: false });
        return message('Variable Set');
      },
    },
    {
      name: 'Getvar',
      privilege: ['call', 'reporting'],
      run: (ctx) => {
        const name = required(ctx.message, 'Variable', 'No variable specified');
        const channelName = ctx.message.get('Channel')?.trim();
        const { core } = ctx.services;
        let value = '';
        if (!channelName) value = core.globalVariables.get(name);
        else {
          try {
            value = core.channelVariables.get(findChannel(ctx, channelName), name);
          } catch (err) {
            // An unset variable reads as empty, as in the original.
            if (!(err instanceof CoreError && err.code === 'not_found')) throw err;
          }
        }
        return success([
          ['Variable', name],
          ['Value', value],
        ]);
      },
    },
    {
      name: 'BlindTransfer',
      privilege: ['call'],
      run: async (ctx) => {
        const channel = channelArg(ctx);
        await ctx.services.core.dialplanRedirect.blindTransfer(channel, location(ctx, ''));
        return message('Transfer succeeded');
      },
    },
    {
      name: 'Atxfer',
      privilege: ['call'],
      run: async (ctx) => {
        const channel = channelArg(ctx);
        const { context, exten } = location(ctx, '');
        await ctx.services.core.attendedTransfers.start(channel, { context, exten });
        return message('Atxfer successfully queued');
      },
    },
    {
      name: 'Bridge',
      privilege: ['call'],
      run: async (ctx) => {
        const first = channelArg(ctx, 'Channel1');
        const second = channelArg(ctx, 'Channel2');
        if (first === second) throw new ActionError('Unable to bridge a channel to itself');
        const { bridges } = ctx.services.core;
        for (const channel of [first, second]) {
          const current = bridges.bridgeOf(channel.id);
          if (current) await bridges.removeChannels(current, [channel]);
        }
        const bridge = await bridges.create({ type: 'mixing', appOwned: false, bridgeClass: 'basic' });
        await bridges.addChannels(bridge, [first, second]);
        // Like a basic two-party bridge: when one party hangs up in it, the other is hung up too
        // (a party taken out alive, by a transfer for instance, leaves the other alone).
        const parties = new Map([
          [first.id, first],
          [second.id, second],
        ]);
        const unsubscribe = ctx.services.core.bus.subscribe((event) => {
          if (event.type === 'BridgeDestroyed' && event.bridge.id === bridge.id) unsubscribe();
          if (event.type !== 'ChannelLeftBridge' || event.bridge.id !== bridge.id) return;
          if (!parties.get(event.channel.id)?.isDestroyed) return;
          unsubscribe();
          for (const remaining of bridge.participants.values()) void remaining.channel.hangup(HANGUP_REASONS.normal);
        });
        return message('Channels have been bridged');
      },
    },
    {
      // A text message to the channel's far end inside its call (SIP: an in-dialog MESSAGE).
      name: 'SendText',
      privilege: ['call'],
      run: async (ctx) => {
        const channel = channelArg(ctx);
        const text = ctx.message.get('Message');
        if (text === undefined || text === '') throw new ActionError('No Message specified');
        try {
          await channel.sendText(text);
        } catch (err) {
          // The original answers a refusal, or a technology that cannot send text, with "Failure".
          if (err instanceof CoreError) throw new ActionError('Failure');
          throw err;
        }
        return message('Success');
      },
    },
    {
      name: 'PlayDTMF',
      privilege: ['call'],
      run: async (ctx) => {
        const channel = channelArg(ctx);
        const digit = required(ctx.message, 'Digit', 'No digit specified');
        const durationText = ctx.message.get('Duration')?.trim();
        const durationMs = durationText ? Number(durationText) : DEFAULT_DTMF_TIMING.durationMs;
        if (!Number.isInteger(durationMs) || durationMs <= 0) throw new ActionError('Invalid duration');
        // Queued like the original: the reply does not wait for the digit to be played.
        const sending = ctx.services.core.channelMedia.sendDtmf(channel, digit, { ...DEFAULT_DTMF_TIMING, durationMs });
        // Digits we send are announced as the original does, with `Direction: Sent`.
        const dtmfEvent = (name: 'DTMFBegin' | 'DTMFEnd', extra: Field[]): ManagerEvent => ({
          name,
          classes: ['dtmf'],
          fields: [
            ...channelFields(channel.snapshot(), ctx.services.linkedId(channel.id)),
            ['Digit', digit],
            ...extra,
            ['Direction', 'Sent'],
          ],
        });
        ctx.services.broadcast(dtmfEvent('DTMFBegin', []));
        ctx.services.track(
          sending.then(
            () => ctx.services.broadcast(dtmfEvent('DTMFEnd', [['DurationMs', String(durationMs)]])),
            () => undefined,
          ),
        );
        return message('DTMF successfully queued');
      },
    },
    {
      name: 'UserEvent',
      privilege: ['user'],
      run: (ctx) => {
        const name = required(ctx.message, 'UserEvent', 'UserEvent not specified');
        const fields: Field[] = [['UserEvent', name]];
        for (const [header, value] of ctx.message.fields) {
          if (!USER_EVENT_OWN_HEADERS.has(header.toLowerCase())) fields.push([header, value]);
        }
        const event: ManagerEvent = { name: 'UserEvent', classes: ['user'], fields };
        ctx.services.broadcast(event);
        return message('Event Sent');
      },
    },
    {
      name: 'MixMonitor',
      privilege: ['system', 'call'],
      run: (ctx) => {
        const channel = channelArg(ctx);
        const file = required(ctx.message, 'File', 'No file specified');
        const dot = file.lastIndexOf('.');
        const name = dot > 0 ? file.slice(0, dot) : file;
        const format = dot > 0 ? file.slice(dot + 1) : 'wav';
        const { recordings, bridges } = ctx.services.core;
        // The original mixes both directions: a bridged channel records its bridge's mix.
        const bridge = bridges.bridgeOf(channel.id);
        recordings.record(bridge ? bridgeRecordTarget(bridge) : channelRecordTarget(channel), { name, format, ifExists: 'overwrite' });
        mixMonitors.set(channel.id, name);
        channel.onHangup(() => mixMonitors.delete(channel.id));
        return success([['MixMonitorID', name]]);
      },
    },
    {
      name: 'StopMixMonitor',
      privilege: ['system', 'call'],
      run: async (ctx) => {
        const channel = channelArg(ctx);
        const name = ctx.message.get('MixMonitorID')?.trim() || mixMonitors.get(channel.id);
        if (!name) throw new ActionError('No MixMonitor on this channel');
        await ctx.services.core.recordings.stop(name);
        mixMonitors.delete(channel.id);
        return message('Stopped MixMonitor');
      },
    },
  ];
}
