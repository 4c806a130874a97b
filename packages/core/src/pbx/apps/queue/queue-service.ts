/**
 * The queues of queues.conf at run time: their members (static from the file, dynamic from the
 * dialplan and persisted), the callers waiting in each, the counters QUEUE_VARIABLES reports,
 * and the queue log (SQLite and `<log dir>/queue_log` in the original's `time|callid|queue|agent|
 * event|data…` format). Member and caller changes are published as Queue* / Agent* office events.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Channel } from '../../../channels/channel.js';
import type { EventBus } from '../../../events/event-bus.js';
import type { QueueMemberEventSnapshot } from '../../../events/office-events.js';
import type { Logger } from '../../../util/logger.js';
import type { QueueConfig, QueuesConfig, StaticMember } from './queue-config.js';
import { memberStatus, type QueueMember } from './queue-members.js';
import type { PenaltyRange, PenaltyRules } from './queue-rules.js';
import type { QueueLogEntry, QueueStore } from './queue-store.js';

export interface QueueDeps {
  config: () => QueuesConfig;
  store: QueueStore;
  bus: EventBus;
  deviceState(device: string): string;
  /** `<log dir>/queue_log`; absent: the SQLite table only. */
  logFile?: string;
  log: Logger;
}

export interface QueueCaller {
  channel: Channel;
  joinedAt: number;
  originalPosition: number;
  /** The members this caller may be offered by penalty (queuerules.conf, QUEUE_MAX/MIN_PENALTY). */
  penaltyRange: PenaltyRange;
  /** Being offered to members right now. */
  ringing: boolean;
  /** QUEUE_PRIO (0 unless set): a caller of higher priority waits ahead of lower ones. */
  priority: number;
}

/** QUEUE_PRIO as the channel has it; anything but a whole number counts as 0. */
export function callerPriority(text: string | undefined): number {
  const value = text?.trim() ?? '';
  return /^-?\d+$/.test(value) ? Number(value) : 0;
}

/** Where a caller of `priority` joins the line: behind every caller of the same or a higher priority. */
export function insertionIndex(callers: readonly QueueCaller[], priority: number): number {
  const lower = callers.findIndex((c) => c.priority < priority);
  return lower < 0 ? callers.length : lower;
}

export interface QueueState {
  config: QueueConfig;
  members: QueueMember[];
  callers: QueueCaller[];
  rrIndex: number;
  completed: number;
  abandoned: number;
  completedInServiceLevel: number;
  /** Callers who hung up before an answer within `servicelevel` seconds of joining. */
  abandonedInServiceLevel: number;
  /** Sum of hold times of answered calls, for QUEUEHOLDTIME. */
  totalHoldSeconds: number;
  /** Sum of talk times of completed calls. */
  totalTalkSeconds: number;
}

/** Average hold and talk time (s) of a queue's completed calls, as the original reports them. */
export function queueAverages(queue: QueueState): { holdtime: number; talktime: number } {
  if (queue.completed === 0) return { holdtime: 0, talktime: 0 };
  return {
    holdtime: Math.round(queue.totalHoldSeconds / queue.completed),
    talktime: Math.round(queue.totalTalkSeconds / queue.completed),
  };
}

/** A queue as the operator console lists it. */
export interface QueueSummary {
  name: string;
  strategy: string;
  calls: number;
  completed: number;
  abandoned: number;
  holdtime: number;
  talktime: number;
  members: QueueMemberEventSnapshot[];
  callers: Array<{ channel: string; position: number; wait: number }>;
}

export class QueueService {
  readonly #queues = new Map<string, QueueState>();
  readonly #deps: QueueDeps;

  constructor(deps: QueueDeps) {
    this.#deps = deps;
    for (const config of deps.config().queues.values()) {
      this.#queues.set(config.name, {
        config,
        members: config.members.map((m) => staticMember(m)),
        callers: [],
        rrIndex: -1,
        completed: 0,
        abandoned: 0,
        completedInServiceLevel: 0,
        abandonedInServiceLevel: 0,
        totalHoldSeconds: 0,
        totalTalkSeconds: 0,
      });
    }
    if (deps.config().persistentMembers) {
      for (const record of deps.store.members()) {
        const queue = this.#queues.get(record.queue);
        if (!queue || queue.members.some((m) => m.interface === record.interface)) continue;
        queue.members.push({
          interface: record.interface,
          name: record.name,
          stateInterface: record.stateInterface,
          penalty: record.penalty,
          membership: 'dynamic',
          paused: record.paused,
          pausedReason: record.pausedReason,
          callsTaken: 0,
          lastCall: 0,
          lastPause: 0,
          loginTime: Date.now(),
          busy: false,
        });
      }
    }
    for (const name of this.#queues.keys()) this.writeLog(name, 'NONE', 'NONE', 'QUEUESTART', []);
  }

  get(name: string): QueueState | undefined {
    return this.#queues.get(name);
  }

  /** The penalty rules of queuerules.conf. */
  get rules(): PenaltyRules {
    return this.#deps.config().rules;
  }

  /** Every queue with its members and callers (console: queue show). */
  list(): QueueSummary[] {
    const now = Date.now();
    return [...this.#queues.values()].map((q) => ({
      name: q.config.name,
      strategy: q.config.strategy,
      calls: q.callers.length,
      completed: q.completed,
      abandoned: q.abandoned,
      ...queueAverages(q),
      members: q.members.map((m) => this.memberSnapshot(q, m)),
      callers: q.callers.map((c, i) => ({ channel: c.channel.name, position: i + 1, wait: Math.round((now - c.joinedAt) / 1000) })),
    }));
  }

  memberSnapshot(queue: QueueState, m: QueueMember): QueueMemberEventSnapshot {
    return {
      name: m.name,
      interface: m.interface,
      state_interface: m.stateInterface,
      membership: m.membership,
      penalty: m.penalty,
      calls_taken: m.callsTaken,
      last_call: Math.floor(m.lastCall / 1000),
      last_pause: Math.floor(m.lastPause / 1000),
      login_time: Math.floor(m.loginTime / 1000),
      in_call: m.busy,
      status: memberStatus(this.#deps.deviceState(m.stateInterface)),
      paused: m.paused,
      paused_reason: m.pausedReason,
      ringinuse: queue.config.ringInUse,
      wrapup_time: queue.config.wrapupTime,
    };
  }

  /** AddQueueMember: ADDED, MEMBERALREADY or NOSUCHQUEUE (AQMSTATUS). */
  addMember(queueName: string, member: StaticMember & { paused?: boolean; reason?: string }): 'ADDED' | 'MEMBERALREADY' | 'NOSUCHQUEUE' {
    const queue = this.#queues.get(queueName);
    if (!queue) return 'NOSUCHQUEUE';
    if (queue.members.some((m) => m.interface === member.interface)) return 'MEMBERALREADY';
    const added: QueueMember = {
      ...staticMember(member),
      membership: 'dynamic',
      paused: member.paused ?? false,
      pausedReason: member.reason ?? '',
    };
    queue.members.push(added);
    this.#persist(queue, added);
    this.writeLog(queueName, 'NONE', added.name, 'ADDMEMBER', []);
    this.#deps.bus.publish({ type: 'QueueMemberAdded', queue: queueName, member: this.memberSnapshot(queue, added) });
    return 'ADDED';
  }

  /** RemoveQueueMember: REMOVED, NOTINQUEUE, NOSUCHQUEUE or NOTDYNAMIC (RQMSTATUS). */
  removeMember(queueName: string, iface: string): 'REMOVED' | 'NOTINQUEUE' | 'NOSUCHQUEUE' | 'NOTDYNAMIC' {
    const queue = this.#queues.get(queueName);
    if (!queue) return 'NOSUCHQUEUE';
    const member = queue.members.find((m) => m.interface.toLowerCase() === iface.toLowerCase());
    if (!member) return 'NOTINQUEUE';
    if (member.membership !== 'dynamic') return 'NOTDYNAMIC';
    queue.members.splice(queue.members.indexOf(member), 1);
    this.#deps.store.removeMember(queueName, member.interface);
    this.writeLog(queueName, 'NONE', member.name, 'REMOVEMEMBER', []);
    this.#deps.bus.publish({ type: 'QueueMemberRemoved', queue: queueName, member: this.memberSnapshot(queue, member) });
    return 'REMOVED';
  }

  /** (Un)pauses the interface in one queue, or in every queue when `queueName` is empty; false when not found. */
  setPaused(queueName: string, iface: string, paused: boolean, reason = ''): boolean {
    let found = false;
    for (const queue of this.#queues.values()) {
      if (queueName !== '' && queue.config.name !== queueName) continue;
      const member = queue.members.find((m) => m.interface.toLowerCase() === iface.toLowerCase());
      if (!member) continue;
      found = true;
      member.paused = paused;
      member.pausedReason = paused ? reason : '';
      if (paused) member.lastPause = Date.now();
      if (member.membership === 'dynamic') this.#persist(queue, member);
      this.writeLog(queue.config.name, 'NONE', member.name, paused ? 'PAUSE' : 'UNPAUSE', [reason]);
      this.#deps.bus.publish({ type: 'QueueMemberPause', queue: queue.config.name, member: this.memberSnapshot(queue, member), reason });
    }
    return found;
  }

  memberStatusChanged(queue: QueueState, member: QueueMember): void {
    this.#deps.bus.publish({ type: 'QueueMemberStatus', queue: queue.config.name, member: this.memberSnapshot(queue, member) });
  }

  /** Appends a queue_log line to SQLite and to the file. */
  writeLog(queue: string, callId: string, agent: string, event: string, data: readonly (string | number)[]): void {
    const entry: QueueLogEntry = { time: Math.floor(Date.now() / 1000), callId, queue, agent, event, data: data.map(String) };
    try {
      this.#deps.store.appendLog(entry);
      if (this.#deps.logFile !== undefined) {
        mkdirSync(dirname(this.#deps.logFile), { recursive: true });
        appendFileSync(this.#deps.logFile, `${[entry.time, callId, queue, agent, event, ...entry.data].join('|')}\n`);
      }
    } catch (err) {
      this.#deps.log.warn({ err, queue, event }, 'queue_log line not written');
    }
  }

  deviceState(device: string): string {
    return this.#deps.deviceState(device);
  }

  /**
   * `weight`: a member shared with a queue of higher weight where a caller waits (not yet being
   * offered) is kept for that queue, as the original's compare_weight does.
   */
  heldForHeavierQueue(queue: QueueState, member: QueueMember): boolean {
    for (const other of this.#queues.values()) {
      if (other === queue || other.config.weight <= queue.config.weight) continue;
      if (!other.callers.some((c) => !c.ringing)) continue;
      if (other.members.some((m) => m.interface.toLowerCase() === member.interface.toLowerCase())) return true;
    }
    return false;
  }

  #persist(queue: QueueState, member: QueueMember): void {
    if (!this.#deps.config().persistentMembers) return;
    this.#deps.store.saveMember({
      queue: queue.config.name,
      interface: member.interface,
      name: member.name,
      stateInterface: member.stateInterface,
      penalty: member.penalty,
      paused: member.paused,
      pausedReason: member.pausedReason,
    });
  }
}

function staticMember(m: StaticMember): QueueMember {
  return {
    interface: m.interface,
    name: m.name,
    stateInterface: m.stateInterface,
    penalty: m.penalty,
    membership: 'static',
    paused: false,
    pausedReason: '',
    callsTaken: 0,
    lastCall: 0,
    lastPause: 0,
    loginTime: Date.now(),
    busy: false,
  };
}
