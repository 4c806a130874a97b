/**
 * Queue(queuename[,options[,URL[,announceoverride[,timeout[,AGI[,gosub[,rule]]]]]]]): the caller
 * waits with music on hold (or ringing: option `r`, queue-options.ts) and announcements until a
 * member answers, rings members by the queue's strategy through the dialplan's Dial() (so members
 * are reached like any dialled device; the music goes on while they ring), and leaves with
 * QUEUESTATUS (TIMEOUT, FULL, JOINEMPTY, LEAVEEMPTY, JOINUNAVAIL, CONTINUE) when no one answered.
 * A member is offered only within the caller's penalty range (queue-rules.ts) and only when no
 * queue of higher `weight` sharing it has a caller waiting.
 *
 *   join ──► waiting ──(a member can be rung)──► ringing ──(answer)──► connected ──► done
 *              ▲                                    │ no answer
 *              └──────────────── retry s ◄──────────┘
 *
 * Several callers ring at once while there are members for them (the original's autofill); a
 * member being rung or talking to a queue caller is not rung again, and with ringinuse = no
 * neither is one whose device state says it is busy elsewhere.
 */
import type { Channel } from '../../../channels/channel.js';
import type { EventBus } from '../../../events/event-bus.js';
import type { ChannelSnapshot } from '../../../model/snapshots.js';
import type { DialplanAppContext, DialplanApplication } from '../../dialplan-app.js';
import { playMedia } from '../ivr-apps.js';
import { isAvailable, isEmpty, orderMembers, type QueueMember } from './queue-members.js';
import { dialOptionsFor, parseQueueOptions, type QueueOptions } from './queue-options.js';
import { initialRange, type PenaltyRange, penaltyRangeAt, withinRange } from './queue-rules.js';
import { callerPriority, insertionIndex, type QueueCaller, type QueueService, type QueueState } from './queue-service.js';

/** How often a waiting caller looks at the members again. */
const POLL_MS = 500;

/** What the caller hears while waiting: the queue's music, or ringing with `r`. */
interface HoldSound {
  start(): Promise<void>;
  stop(): Promise<void>;
}

function holdSound(ctx: DialplanAppContext, queue: QueueState, options: QueueOptions): HoldSound {
  if (!options.ringing) {
    return {
      start: async () => {
        await ctx.pbx.media?.startMoh(ctx.channel, queue.config.musicClass || undefined).catch(() => undefined);
      },
      stop: async () => {
        await ctx.pbx.media?.stopMoh(ctx.channel).catch(() => undefined);
      },
    };
  }
  let playing: string | undefined;
  return {
    start: async () => {
      if (playing !== undefined || ctx.channel.isDestroyed) return;
      try {
        playing = ctx.playbacks.playOnChannelTracked(ctx.channel, ['tone:ring']).snapshot.id;
      } catch (err) {
        ctx.log.debug({ err }, 'queue ringing not played');
      }
    },
    stop: async () => {
      const id = playing;
      playing = undefined;
      if (id !== undefined) await ctx.playbacks.stop(id).catch(() => undefined);
    },
  };
}

/** A member's channel made by Dial(), with its latest snapshot from the bus. */
interface RungMember {
  member: QueueMember;
  snapshot: ChannelSnapshot;
}

export function queueApplication(service: QueueService, bus: EventBus): DialplanApplication {
  return async (ctx, [name = '', optionText = '', _url = '', _announce = '', timeoutText = '', _agi = '', _gosub = '', ruleName = '']) => {
    const { channel } = ctx;
    const options = parseQueueOptions(optionText);
    if (options.unsupported.length > 0) ctx.log.warn({ options: options.unsupported.join('') }, 'Queue: option letters not supported');
    const queue = service.get(name.trim());
    if (!queue) {
      ctx.log.warn({ queue: name }, 'Queue: no such queue in queues.conf');
      channel.setVariable('QUEUESTATUS', 'UNKNOWN');
      return { kind: 'next' };
    }
    const now = Date.now();
    const config = queue.config;
    const rule = ruleName.trim() || config.defaultRule;
    const steps = rule === '' ? [] : (service.rules.get(rule) ?? []);
    if (rule !== '' && !service.rules.has(rule)) ctx.log.warn({ rule }, 'Queue: no such rule in queuerules.conf');
    const startRange = initialRange((v) => channel.getVariable(v));
    if (config.maxLen > 0 && queue.callers.length >= config.maxLen) {
      channel.setVariable('QUEUESTATUS', 'FULL');
      return { kind: 'next' };
    }
    if (config.joinEmpty && isEmpty(queue.members, config.joinEmpty, config, (d) => service.deviceState(d), now, startRange)) {
      channel.setVariable('QUEUESTATUS', 'JOINEMPTY');
      return { kind: 'next' };
    }
    await channel.answer();
    const caller: QueueCaller = {
      channel,
      joinedAt: now,
      originalPosition: 0,
      priority: callerPriority(channel.getVariable('QUEUE_PRIO')),
      ringing: false,
      penaltyRange: startRange,
    };
    const hold = holdSound(ctx, queue, options);
    /** Members rung so far (`n` leaves once every member has had its chance). */
    const tried = new Set<QueueMember>();
    // QUEUE_PRIO: ahead of every caller of lower priority, behind those of the same or higher.
    const at = insertionIndex(queue.callers, caller.priority);
    queue.callers.splice(at, 0, caller);
    caller.originalPosition = at + 1;
    service.writeLog(config.name, channel.id, 'NONE', 'ENTERQUEUE', ['', channel.caller.number]);
    bus.publish({
      type: 'QueueCallerJoin',
      queue: config.name,
      channel: channel.snapshot(),
      position: caller.originalPosition,
      count: queue.callers.length,
    });
    const timeoutMs = Math.max(0, Number(timeoutText) || 0) * 1000;
    let connected = false;
    let status = 'CONTINUE';
    try {
      await hold.start();
      let nextAnnounce = config.announceFrequency > 0 ? now + config.announceFrequency * 1000 : Number.POSITIVE_INFINITY;
      let nextPeriodic = config.periodicAnnounceFrequency > 0 ? now + config.periodicAnnounceFrequency * 1000 : Number.POSITIVE_INFINITY;
      let nextAttempt = 0;
      while (!channel.isDestroyed) {
        const t = Date.now();
        updateRange(channel, caller, penaltyRangeAt(steps, (t - caller.joinedAt) / 1000, startRange));
        if (timeoutMs > 0 && t - caller.joinedAt >= timeoutMs) {
          status = 'TIMEOUT';
          service.writeLog(config.name, channel.id, 'NONE', 'EXITWITHTIMEOUT', [
            position(queue, caller),
            caller.originalPosition,
            waited(caller),
          ]);
          break;
        }
        if (config.leaveEmpty && isEmpty(queue.members, config.leaveEmpty, config, (d) => service.deviceState(d), t, caller.penaltyRange)) {
          status = 'LEAVEEMPTY';
          service.writeLog(config.name, channel.id, 'NONE', 'EXITEMPTY', [
            position(queue, caller),
            caller.originalPosition,
            waited(caller),
          ]);
          break;
        }
        if (t >= nextAnnounce) {
          await announce(ctx, hold, positionAnnouncement(queue, caller));
          nextAnnounce = Date.now() + config.announceFrequency * 1000;
        } else if (t >= nextPeriodic) {
          await announce(
            ctx,
            hold,
            config.periodicAnnounce.map((s) => `sound:${s}`),
          );
          nextPeriodic = Date.now() + config.periodicAnnounceFrequency * 1000;
        }
        const members = t >= nextAttempt ? membersToRing(service, queue, caller, t) : [];
        if (members.length > 0) {
          for (const m of members) tried.add(m);
          connected = await ring(ctx, service, bus, queue, caller, members, options, hold);
          if (connected || channel.isDestroyed) break;
          if (options.noRetry && queue.members.every((m) => tried.has(m))) {
            status = 'TIMEOUT';
            service.writeLog(config.name, channel.id, 'NONE', 'EXITWITHTIMEOUT', [
              position(queue, caller),
              caller.originalPosition,
              waited(caller),
            ]);
            break;
          }
          nextAttempt = Date.now() + config.retry * 1000;
          await hold.start();
          continue;
        }
        await ctx.sleep(POLL_MS);
      }
    } catch (err) {
      if (!channel.isDestroyed) throw err;
    } finally {
      const index = queue.callers.indexOf(caller);
      if (index >= 0) {
        queue.callers.splice(index, 1);
        if (channel.isDestroyed && !connected) {
          queue.abandoned += 1;
          if (waited(caller) <= config.serviceLevel) queue.abandonedInServiceLevel += 1;
          service.writeLog(config.name, channel.id, 'NONE', 'ABANDON', [index + 1, caller.originalPosition, waited(caller)]);
          bus.publish({
            type: 'QueueCallerAbandon',
            queue: config.name,
            channel: channel.snapshot(),
            position: index + 1,
            original_position: caller.originalPosition,
            hold_time: waited(caller),
          });
        }
        bus.publish({
          type: 'QueueCallerLeave',
          queue: config.name,
          channel: channel.snapshot(),
          position: index + 1,
          count: queue.callers.length,
        });
      }
      if (!channel.isDestroyed && !connected) await hold.stop();
    }
    if (channel.isDestroyed) return { kind: 'stop' };
    if (!connected) channel.setVariable('QUEUESTATUS', status);
    return { kind: 'next' };
  };
}

function position(queue: QueueState, caller: QueueCaller): number {
  return queue.callers.indexOf(caller) + 1;
}

function waited(caller: QueueCaller): number {
  return Math.round((Date.now() - caller.joinedAt) / 1000);
}

/** A new penalty range is kept and shown in QUEUE_MAX_PENALTY / QUEUE_MIN_PENALTY, as the original does. */
function updateRange(channel: Channel, caller: QueueCaller, range: PenaltyRange): void {
  if (range.max === caller.penaltyRange.max && range.min === caller.penaltyRange.min) return;
  caller.penaltyRange = range;
  channel.setVariable('QUEUE_MAX_PENALTY', range.max === undefined ? '' : String(range.max));
  channel.setVariable('QUEUE_MIN_PENALTY', range.min === undefined ? '' : String(range.min));
}

/**
 * The members this caller may ring now: available, within its penalty range, not kept for a
 * queue of higher weight; none while callers ahead of it wait for the same members.
 */
export function membersToRing(service: QueueService, queue: QueueState, caller: QueueCaller, now: number): QueueMember[] {
  const { config } = queue;
  const available = queue.members.filter(
    (m) =>
      isAvailable(m, config, service.deviceState(m.stateInterface), now) &&
      withinRange(m.penalty, caller.penaltyRange) &&
      !service.heldForHeavierQueue(queue, m),
  );
  const waitingAhead = queue.callers.slice(0, queue.callers.indexOf(caller)).filter((c) => !c.ringing).length;
  if (waitingAhead >= available.length) return [];
  const ordered = orderMembers(config.strategy, available, queue.members, queue.rrIndex);
  return config.strategy === 'ringall' ? ordered : ordered.slice(0, 1);
}

/** One ring attempt through Dial(); true when a member answered and the call took place. */
async function ring(
  ctx: DialplanAppContext,
  service: QueueService,
  bus: EventBus,
  queue: QueueState,
  caller: QueueCaller,
  members: QueueMember[],
  options: QueueOptions,
  sound: HoldSound,
): Promise<boolean> {
  const { channel } = ctx;
  const config = queue.config;
  caller.ringing = true;
  for (const m of members) {
    m.busy = true;
    service.memberStatusChanged(queue, m);
  }
  const ringStart = Date.now();
  /** The channel Dial() made for each member it rang, as last seen on the bus (channel id → member). */
  const rung = new Map<string, RungMember>();
  let answered: { rung: RungMember; at: number } | undefined;
  /** Who hung up first once connected (COMPLETECALLER or COMPLETEAGENT). */
  let firstGone: 'caller' | 'agent' | undefined;
  const unsubscribe = bus.subscribe((event) => {
    if (event.type === 'Dial' && event.caller?.id === channel.id) {
      const known = rung.get(event.peer.id);
      if (known) known.snapshot = event.peer;
      if (event.dialstatus !== '' || known) return;
      const member = members.find((m) => m.interface.toLowerCase() === event.dialstring?.toLowerCase());
      if (!member) return;
      rung.set(event.peer.id, { member, snapshot: event.peer });
      // The original raises AgentCalled once the member's channel exists, after its DialBegin.
      bus.publish({
        type: 'AgentCalled',
        queue: config.name,
        channel: channel.snapshot(),
        member_channel: event.peer,
        member: member.name,
        interface: member.interface,
      });
      return;
    }
    const seen = 'channel' in event && event.channel ? rung.get(event.channel.id) : undefined;
    if (seen && 'channel' in event && event.channel) seen.snapshot = event.channel;
    if (answered && firstGone === undefined && (event.type === 'ChannelHangupRequest' || event.type === 'ChannelDestroyed')) {
      if (event.channel.id === channel.id) firstGone = 'caller';
      else if (event.channel.id === answered.rung.snapshot.id) firstGone = 'agent';
      return;
    }
    if (answered || event.type !== 'ChannelEnteredBridge' || event.channel.id === channel.id) return;
    if (!event.bridge.channels.includes(channel.id) || !seen) return;
    const { member } = seen;
    answered = { rung: seen, at: Date.now() };
    if (options.ringing) void sound.stop();
    const hold = Math.round((answered.at - caller.joinedAt) / 1000);
    // The original drops the caller out of the queue (QueueCallerLeave) before AgentConnect.
    const index = queue.callers.indexOf(caller);
    if (index >= 0) {
      queue.callers.splice(index, 1);
      bus.publish({
        type: 'QueueCallerLeave',
        queue: config.name,
        channel: channel.snapshot(),
        position: index + 1,
        count: queue.callers.length,
      });
    }
    queue.totalHoldSeconds += hold;
    service.writeLog(config.name, channel.id, member.name, 'CONNECT', [
      hold,
      event.channel.id,
      Math.round((answered.at - ringStart) / 1000),
    ]);
    bus.publish({
      type: 'AgentConnect',
      queue: config.name,
      channel: channel.snapshot(),
      member_channel: event.channel,
      member: member.name,
      interface: member.interface,
      hold_time: hold,
      ring_time: Math.round((answered.at - ringStart) / 1000),
    });
    for (const other of members) if (other !== member) other.busy = false;
  });
  try {
    // Music goes on while members ring (Dial's m); with `r` the ringing already playing goes on.
    if (!options.ringing) await sound.stop();
    await ctx.pbx.runApplication(
      ctx,
      'Dial',
      `${members.map((m) => m.interface).join('&')},${config.timeout},${dialOptionsFor(options, config.musicClass)}`,
    );
  } finally {
    unsubscribe();
    caller.ringing = false;
  }
  const last = members.at(-1);
  if (last) queue.rrIndex = queue.members.indexOf(answered?.rung.member ?? last);
  if (!answered) {
    for (const m of members) m.busy = false;
    // Only a member whose channel was made was rung; one Dial() could not reach has no ring to report.
    for (const { member, snapshot } of rung.values()) {
      service.writeLog(config.name, channel.id, member.name, 'RINGNOANSWER', [Date.now() - ringStart]);
      bus.publish({
        type: 'AgentRingNoAnswer',
        queue: config.name,
        channel: channel.snapshot(),
        member_channel: snapshot,
        member: member.name,
        interface: member.interface,
        ring_time: Math.round((Date.now() - ringStart) / 1000),
      });
    }
    for (const m of members) service.memberStatusChanged(queue, m);
    return false;
  }
  const { member, snapshot: memberChannel } = answered.rung;
  const { at } = answered;
  const talk = Math.round((Date.now() - at) / 1000);
  const hold = Math.round((at - caller.joinedAt) / 1000);
  const byCaller = (firstGone ?? (channel.isDestroyed ? 'caller' : 'agent')) === 'caller';
  service.writeLog(config.name, channel.id, member.name, byCaller ? 'COMPLETECALLER' : 'COMPLETEAGENT', [
    hold,
    talk,
    caller.originalPosition,
  ]);
  bus.publish({
    type: 'AgentComplete',
    queue: config.name,
    channel: channel.snapshot(),
    member_channel: memberChannel,
    member: member.name,
    interface: member.interface,
    hold_time: hold,
    talk_time: talk,
    reason: byCaller ? 'caller' : 'agent',
  });
  member.busy = false;
  member.callsTaken += 1;
  member.lastCall = Date.now();
  queue.completed += 1;
  queue.totalTalkSeconds += talk;
  if (hold <= config.serviceLevel) queue.completedInServiceLevel += 1;
  service.memberStatusChanged(queue, member);
  return true;
}

async function announce(ctx: DialplanAppContext, hold: HoldSound, uris: string[]): Promise<void> {
  if (uris.length === 0) return;
  await hold.stop();
  await playMedia(ctx, uris, false);
  await hold.start();
}

/** "You are now first in line" or "you are caller number N", then the estimated hold time. */
function positionAnnouncement(queue: QueueState, caller: QueueCaller): string[] {
  const uris: string[] = [];
  const pos = position(queue, caller);
  if (queue.config.announcePosition && pos > 0) {
    uris.push(...(pos === 1 ? ['sound:queue-youarenext'] : ['sound:queue-thereare', `number:${pos}`, 'sound:queue-callswaiting']));
  }
  if (queue.config.announceHoldTime && queue.completed > 0) {
    const minutes = Math.round(queue.totalHoldSeconds / queue.completed / 60);
    uris.push(
      'sound:queue-holdtime',
      ...(minutes < 1 ? ['sound:queue-less-than', 'number:1'] : [`number:${minutes}`]),
      'sound:queue-minutes',
    );
  }
  if (uris.length > 0) uris.push('sound:queue-thankyou');
  return uris;
}
