/**
 * The queue family (QueueStatus, QueueSummary, QueueAdd, QueueRemove, QueuePause) and the
 * conference family (ConfbridgeList, ConfbridgeListRooms, ConfbridgeKick, ConfbridgeMute,
 * ConfbridgeUnmute, ConfbridgeLock, ConfbridgeUnlock, ConfbridgeStartRecord, ConfbridgeStopRecord) over core's queue and ConfBridge services, with the original's replies.
 */
import { type QueueState, queueAverages, type SwitchboardCore } from '@switchboard/core';
import { channelFields } from '../fields.js';
import { queueMemberFields } from '../office-event-map.js';
import type { Field } from '../wire.js';
import { type ActionContext, type ActionDefinition, ActionError, isTrue, message, type Reply, required } from './types.js';

type Conference = NonNullable<ReturnType<SwitchboardCore['conferences']['get']>>;
type ConferenceUser = Conference['users'] extends Map<string, infer U> ? U : never;

const QUEUE_ENTRY_CHANNEL_FIELDS = ['Channel', 'Uniqueid', 'CallerIDNum', 'CallerIDName', 'ConnectedLineNum', 'ConnectedLineName'] as const;

/** Queues named by an optional `Queue` header (all when absent). */
function selectedQueues(ctx: ActionContext): QueueState[] {
  const name = ctx.message.get('Queue')?.trim();
  const queues = ctx.services.core.queues;
  if (name) {
    const queue = queues.get(name);
    return queue ? [queue] : [];
  }
  return queues
    .list()
    .map((q) => queues.get(q.name))
    .filter((q): q is QueueState => q !== undefined);
}

function queueStatusItems(ctx: ActionContext, queue: QueueState): { name: string; fields: Field[] }[] {
  const { holdtime, talktime } = queueAverages(queue);
  const name = queue.config.name;
  const completed = queue.completed;
  const serviceLevelPerf = completed === 0 ? 0 : (queue.completedInServiceLevel / completed) * 100;
  // The original's second measure counts the calls abandoned within the service level as met.
  const ended = completed + queue.abandoned;
  const serviceLevelPerf2 = ended === 0 ? 0 : ((queue.completedInServiceLevel + queue.abandonedInServiceLevel) / ended) * 100;
  const items: { name: string; fields: Field[] }[] = [
    {
      name: 'QueueParams',
      fields: [
        ['Queue', name],
        ['Max', String(queue.config.maxLen)],
        ['Strategy', queue.config.strategy],
        ['Calls', String(queue.callers.length)],
        ['Holdtime', String(holdtime)],
        ['TalkTime', String(talktime)],
        ['Completed', String(completed)],
        ['Abandoned', String(queue.abandoned)],
        ['ServiceLevel', String(queue.config.serviceLevel)],
        ['ServicelevelPerf', serviceLevelPerf.toFixed(1)],
        ['ServicelevelPerf2', serviceLevelPerf2.toFixed(1)],
        ['Weight', String(queue.config.weight)],
      ],
    },
  ];
  const memberFilter = ctx.message.get('Member')?.trim().toLowerCase();
  for (const member of queue.members) {
    if (memberFilter && member.interface.toLowerCase() !== memberFilter) continue;
    const snapshot = ctx.services.core.queues.memberSnapshot(queue, member);
    // QueueStatus names the member block Name/Location where the events say MemberName/Interface.
    const fields = queueMemberFields(name, snapshot).map(([field, value]): Field => {
      if (field === 'MemberName') return ['Name', value];
      if (field === 'Interface') return ['Location', value];
      return [field, value];
    });
    items.push({ name: 'QueueMember', fields });
  }
  const now = Date.now();
  queue.callers.forEach((caller, index) => {
    const channel = caller.channel.snapshot();
    // The original's QueueEntry has a part of the channel block only, then Wait and Priority.
    const byName = new Map(channelFields(channel, ctx.services.linkedId(channel.id)));
    const block = QUEUE_ENTRY_CHANNEL_FIELDS.map((field): Field => [field, byName.get(field) ?? '']);
    items.push({
      name: 'QueueEntry',
      fields: [
        ['Queue', name],
        ['Position', String(index + 1)],
        ...block,
        ['Wait', String(Math.round((now - caller.joinedAt) / 1000))],
        // Callers have no queue priority (QUEUE_PRIO) yet: all are equal.
        ['Priority', '0'],
      ],
    });
  });
  return items;
}

function conferenceOf(ctx: ActionContext): Conference {
  const name = required(ctx.message, 'Conference', 'No Conference name provided.');
  const conferences = ctx.services.core.conferences;
  if (conferences.list().length === 0) throw new ActionError('No active conferences.');
  const conference = conferences.get(name);
  if (!conference || conference.ended) throw new ActionError('No Conference by that name found.');
  return conference;
}

/** Users named by `Channel`: a channel name, `all`, or `participants` (everyone but admins). */
function conferenceUsers(ctx: ActionContext, conference: Conference): ConferenceUser[] {
  const channel = required(ctx.message, 'Channel', 'No channel name provided.');
  const users = [...conference.users.values()].filter((u) => u.state !== 'left');
  if (channel.toLowerCase() === 'all') return users;
  if (channel.toLowerCase() === 'participants') return users.filter((u) => !u.profile.admin);
  const user = users.find((u) => u.channel.name === channel || u.channel.id === channel);
  if (!user) throw new ActionError('No Channel by that name found in Conference.');
  return [user];
}

async function setConferenceMute(ctx: ActionContext, muted: boolean): Promise<Reply> {
  const conference = conferenceOf(ctx);
  const users = conferenceUsers(ctx, conference);
  for (const user of users) await ctx.services.core.conferences.setMuted(conference, user, muted);
  return message(muted ? 'User muted' : 'User unmuted');
}

function setConferenceLock(ctx: ActionContext, locked: boolean): Reply {
  ctx.services.core.conferences.setLocked(conferenceOf(ctx), locked);
  return message(locked ? 'Conference locked' : 'Conference unlocked');
}

export function officeActions(): ActionDefinition[] {
  return [
    {
      name: 'QueueStatus',
      privilege: [],
      run: (ctx): Reply => ({
        kind: 'list',
        message: 'Queue status will follow',
        complete: 'QueueStatusComplete',
        items: selectedQueues(ctx).flatMap((queue) => queueStatusItems(ctx, queue)),
      }),
    },
    {
      name: 'QueueSummary',
      privilege: [],
      run: (ctx): Reply => {
        const queues = ctx.services.core.queues;
        const now = Date.now();
        return {
          kind: 'list',
          message: 'Queue summary will follow',
          complete: 'QueueSummaryComplete',
          items: selectedQueues(ctx).map((queue) => {
            const members = queue.members.map((m) => queues.memberSnapshot(queue, m));
            // Status 5 is unavailable, 1 not in use (the original's numbering).
            const loggedIn = members.filter((m) => m.status !== 5).length;
            const available = members.filter((m) => m.status === 1 && !m.paused && !m.in_call).length;
            const longest = queue.callers.reduce((max, c) => Math.max(max, Math.round((now - c.joinedAt) / 1000)), 0);
            const { holdtime, talktime } = queueAverages(queue);
            return {
              name: 'QueueSummary',
              fields: [
                ['Queue', queue.config.name],
                ['LoggedIn', String(loggedIn)],
                ['Available', String(available)],
                ['Callers', String(queue.callers.length)],
                ['HoldTime', String(holdtime)],
                ['TalkTime', String(talktime)],
                ['LongestHoldTime', String(longest)],
              ],
            };
          }),
        };
      },
    },
    {
      name: 'QueueAdd',
      privilege: ['agent'],
      run: (ctx) => {
        const queue = required(ctx.message, 'Queue', "'Queue' not specified.");
        const iface = required(ctx.message, 'Interface', "'Interface' not specified.");
        const penaltyText = ctx.message.get('Penalty')?.trim();
        const penalty = penaltyText ? Number(penaltyText) : 0;
        if (!Number.isInteger(penalty) || penalty < 0) throw new ActionError('Invalid penalty');
        const result = ctx.services.core.queues.addMember(queue, {
          interface: iface,
          name: ctx.message.get('MemberName')?.trim() || iface,
          stateInterface: ctx.message.get('StateInterface')?.trim() || iface,
          penalty,
          paused: isTrue(ctx.message.get('Paused')),
          reason: ctx.message.get('Reason')?.trim() ?? '',
        });
        if (result === 'NOSUCHQUEUE') throw new ActionError('Unable to add interface to queue: No such queue');
        if (result === 'MEMBERALREADY') throw new ActionError('Unable to add interface: Already there');
        return message('Added interface to queue');
      },
    },
    {
      name: 'QueueRemove',
      privilege: ['agent'],
      run: (ctx) => {
        const queue = required(ctx.message, 'Queue', "Need 'Queue' and 'Interface' parameters.");
        const iface = required(ctx.message, 'Interface', "Need 'Queue' and 'Interface' parameters.");
        switch (ctx.services.core.queues.removeMember(queue, iface)) {
          case 'REMOVED':
            return message('Removed interface from queue');
          case 'NOSUCHQUEUE':
            throw new ActionError('Unable to remove interface from queue: No such queue');
          case 'NOTINQUEUE':
            throw new ActionError('Unable to remove interface: Not there');
          case 'NOTDYNAMIC':
            throw new ActionError('Member not dynamic');
        }
      },
    },
    {
      name: 'QueuePause',
      privilege: ['agent'],
      run: (ctx) => {
        const iface = required(ctx.message, 'Interface', "Need 'Interface' parameter.");
        const pausedText = required(ctx.message, 'Paused', "Need 'Paused' parameter.");
        const paused = isTrue(pausedText);
        const queue = ctx.message.get('Queue')?.trim() ?? '';
        const reason = ctx.message.get('Reason')?.trim() ?? '';
        if (!ctx.services.core.queues.setPaused(queue, iface, paused, reason)) throw new ActionError('Interface not found');
        return message(paused ? 'Interface paused successfully' : 'Interface unpaused successfully');
      },
    },
    {
      name: 'ConfbridgeList',
      privilege: ['reporting'],
      run: (ctx): Reply => {
        const conference = conferenceOf(ctx);
        const users = [...conference.users.values()].filter((u) => u.state !== 'left');
        const now = Date.now();
        return {
          kind: 'list',
          message: 'Confbridge user list will follow',
          complete: 'ConfbridgeListComplete',
          items: users.map((user) => {
            const channel = user.channel.snapshot();
            return {
              name: 'ConfbridgeList',
              // The original's order: the user's flags first, then the channel block.
              fields: [
                ['Conference', conference.name],
                ['Admin', user.profile.admin ? 'Yes' : 'No'],
                ['MarkedUser', user.profile.marked ? 'Yes' : 'No'],
                ['WaitMarked', user.profile.waitMarked ? 'Yes' : 'No'],
                ['EndMarked', user.profile.endMarked ? 'Yes' : 'No'],
                ['Waiting', user.state === 'waiting' ? 'Yes' : 'No'],
                ['Muted', user.muted ? 'Yes' : 'No'],
                ['Talking', user.talking ? 'Yes' : 'No'],
                ['AnsweredTime', String(Math.round((now - user.joinedAt) / 1000))],
                ...channelFields(channel, ctx.services.linkedId(channel.id)),
              ],
            };
          }),
        };
      },
    },
    {
      name: 'ConfbridgeListRooms',
      privilege: ['reporting'],
      run: (ctx): Reply => {
        const rooms = ctx.services.core.conferences.list();
        if (rooms.length === 0) throw new ActionError('No active conferences.');
        return {
          kind: 'list',
          message: 'Confbridge conferences will follow',
          complete: 'ConfbridgeListRoomsComplete',
          items: rooms.map((room) => {
            const present = room.participants.filter((p) => p.state !== 'left');
            return {
              name: 'ConfbridgeListRooms',
              fields: [
                ['Conference', room.name],
                ['Parties', String(present.length)],
                ['Marked', String(present.filter((p) => p.marked).length)],
                ['Locked', room.locked ? 'Yes' : 'No'],
                ['Muted', present.length > 0 && present.every((p) => p.muted) ? 'Yes' : 'No'],
              ],
            };
          }),
        };
      },
    },
    {
      name: 'ConfbridgeKick',
      privilege: ['call'],
      run: async (ctx) => {
        const conference = conferenceOf(ctx);
        const users = conferenceUsers(ctx, conference);
        for (const user of users) await ctx.services.core.conferences.kick(conference, user);
        return message('User kicked');
      },
    },
    { name: 'ConfbridgeMute', privilege: ['call'], run: (ctx) => setConferenceMute(ctx, true) },
    { name: 'ConfbridgeLock', privilege: ['call'], run: (ctx) => setConferenceLock(ctx, true) },
    { name: 'ConfbridgeUnlock', privilege: ['call'], run: (ctx) => setConferenceLock(ctx, false) },
    { name: 'ConfbridgeUnmute', privilege: ['call'], run: (ctx) => setConferenceMute(ctx, false) },
    {
      name: 'ConfbridgeStartRecord',
      privilege: ['system'],
      run: (ctx) => {
        const conference = conferenceOf(ctx);
        const file = ctx.message.get('RecordFile')?.trim();
        // A bad file name is answered with the recording manager's reason (a CoreError).
        if (!ctx.services.core.conferences.startRecording(conference, file || undefined)) {
          throw new ActionError('Conference is already being recorded.');
        }
        return message('Conference Recording Started.');
      },
    },
    {
      name: 'ConfbridgeStopRecord',
      privilege: ['system'],
      run: (ctx) => {
        if (!ctx.services.core.conferences.stopRecording(conferenceOf(ctx)))
          throw new ActionError('Internal error while stopping recording.');
        return message('Conference Recording Stopped.');
      },
    },
  ];
}
