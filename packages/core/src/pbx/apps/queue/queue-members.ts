/**
 * Queue members and how a strategy orders the available ones. Pure: availability and order are
 * computed from the members' counters, the device states given and the clock given, so a test
 * can check every strategy without calls.
 */
import type { EmptyCondition, QueueConfig, Strategy } from './queue-config.js';
import { type PenaltyRange, withinRange } from './queue-rules.js';

export interface QueueMember {
  interface: string;
  name: string;
  stateInterface: string;
  penalty: number;
  membership: 'static' | 'dynamic';
  paused: boolean;
  pausedReason: string;
  callsTaken: number;
  /** Unix ms of the end of the last call (0: never). */
  lastCall: number;
  /** Unix ms of the last pause (0: never). */
  lastPause: number;
  /** Unix ms since which the member is in the queue (loaded or added). */
  loginTime: number;
  /** Being rung or talking to a caller of this queue. */
  busy: boolean;
}

/** Device states that mean "on a call or ringing" (ringinuse = no skips such members). */
const IN_USE_STATES = new Set(['INUSE', 'BUSY', 'RINGING', 'RINGINUSE', 'ONHOLD']);
const UNAVAILABLE_STATES = new Set(['UNAVAILABLE']);
const INVALID_STATES = new Set(['INVALID']);

/** The member's status number in the original's AMI numbering (1 not in use … 8 ringing). */
export function memberStatus(deviceState: string): number {
  switch (deviceState) {
    case 'NOT_INUSE':
      return 1;
    case 'INUSE':
      return 2;
    case 'BUSY':
      return 3;
    case 'INVALID':
      return 4;
    case 'UNAVAILABLE':
      return 5;
    case 'RINGING':
      return 6;
    case 'RINGINUSE':
      return 7;
    case 'ONHOLD':
      return 8;
    default:
      return 0;
  }
}

export function inWrapUp(member: QueueMember, queue: QueueConfig, now: number): boolean {
  return queue.wrapupTime > 0 && member.lastCall > 0 && now - member.lastCall < queue.wrapupTime * 1000;
}

/** Whether the member can be rung for a caller now. */
export function isAvailable(member: QueueMember, queue: QueueConfig, deviceState: string, now: number): boolean {
  if (member.paused || member.busy || inWrapUp(member, queue, now)) return false;
  if (UNAVAILABLE_STATES.has(deviceState) || INVALID_STATES.has(deviceState)) return false;
  if (!queue.ringInUse && IN_USE_STATES.has(deviceState)) return false;
  return true;
}

/**
 * Whether every member matches one of `conditions` (the queue counts as empty: joinempty/leaveempty).
 * `penalty` matches a member outside the caller's penalty range.
 */
export function isEmpty(
  members: readonly QueueMember[],
  conditions: readonly EmptyCondition[],
  queue: QueueConfig,
  deviceState: (device: string) => string,
  now: number,
  range: PenaltyRange = {},
): boolean {
  return members.every((m) => {
    const state = deviceState(m.stateInterface);
    return conditions.some((c) => {
      switch (c) {
        case 'paused':
          return m.paused;
        case 'penalty':
          return !withinRange(m.penalty, range);
        case 'inuse':
          return IN_USE_STATES.has(state) && state !== 'RINGING';
        case 'ringing':
          return state === 'RINGING';
        case 'unavailable':
          return UNAVAILABLE_STATES.has(state);
        case 'invalid':
          return INVALID_STATES.has(state);
        case 'unknown':
          return state === 'UNKNOWN';
        case 'wrapup':
          return inWrapUp(m, queue, now);
      }
      return false;
    });
  });
}

/**
 * The members to ring, in order, for one attempt: ringall rings every available member of the
 * lowest penalty at once; the others ring one member at a time in the order returned.
 * `rrIndex` is the queue's round-robin memory (index of the last member rung).
 */
export function orderMembers(
  strategy: Strategy,
  available: readonly QueueMember[],
  allInOrder: readonly QueueMember[],
  rrIndex: number,
  random: () => number = Math.random,
): QueueMember[] {
  if (available.length === 0) return [];
  const lowest = Math.min(...available.map((m) => m.penalty));
  const byPenalty = (list: QueueMember[]) => [...list].sort((a, b) => a.penalty - b.penalty);
  switch (strategy) {
    case 'ringall':
      return available.filter((m) => m.penalty === lowest);
    case 'leastrecent':
      return byPenalty([...available].sort((a, b) => a.lastCall - b.lastCall));
    case 'fewestcalls':
      return byPenalty([...available].sort((a, b) => a.callsTaken - b.callsTaken));
    case 'random':
      return byPenalty(shuffle(available, random));
    case 'wrandom': {
      // The original's weighted random: a metric drawn below (1 + penalty) × 1000, lowest first.
      const metric = new Map(available.map((m) => [m, Math.floor(random() * (1 + m.penalty) * 1000)]));
      return [...available].sort((a, b) => (metric.get(a) ?? 0) - (metric.get(b) ?? 0));
    }
    case 'rrmemory':
    case 'rrordered': {
      // Start after the member rung last, in configuration order.
      const start = allInOrder.length === 0 ? 0 : (rrIndex + 1) % allInOrder.length;
      const rotated = [...allInOrder.slice(start), ...allInOrder.slice(0, start)];
      return byPenalty(rotated.filter((m) => available.includes(m)));
    }
    case 'linear':
      return byPenalty(allInOrder.filter((m) => available.includes(m)));
  }
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
