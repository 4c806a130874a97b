/**
 * queues.conf with the original's names. `[general]`: persistentmembers (yes). Each other
 * section is a queue: strategy (ringall), timeout (15 s per ring attempt), retry (5 s between
 * rounds), wrapuptime (0), maxlen (0 = no limit), weight (0), joinempty (yes), leaveempty (no),
 * ringinuse (yes), musicclass, announce-frequency (0), announce-position (yes),
 * announce-holdtime (no), periodic-announce (queue-periodic-announce),
 * periodic-announce-frequency (0), servicelevel (60), defaultrule (a penalty rule of
 * queuerules.conf, queue-rules.ts), and
 * `member => interface[,penalty[,membername[,state_interface]]]` lines (static members).
 * joinempty/leaveempty take yes, no, or a list of the member conditions that count as "empty"
 * (paused, penalty, inuse, ringing, unavailable, invalid, unknown, wrapup).
 */
import { resolve } from 'node:path';
import { readIniFile } from '../../../config/ini-file.js';
import type { IniOption } from '../../../config/ini.js';
import { warnUnsupported } from '../../../config/option-table.js';
import { invalid, parseBool, parseInteger } from '../../../config/values.js';
import type { Logger } from '../../../util/logger.js';
import { type PenaltyRules, readQueueRules } from './queue-rules.js';

export const QUEUES_CONFIG_FILE = 'queues.conf';

export const STRATEGIES = ['ringall', 'leastrecent', 'fewestcalls', 'random', 'rrmemory', 'rrordered', 'linear', 'wrandom'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const EMPTY_CONDITIONS = ['paused', 'penalty', 'inuse', 'ringing', 'unavailable', 'invalid', 'unknown', 'wrapup'] as const;
export type EmptyCondition = (typeof EMPTY_CONDITIONS)[number];

export interface StaticMember {
  interface: string;
  penalty: number;
  name: string;
  stateInterface: string;
}

export interface QueueConfig {
  name: string;
  strategy: Strategy;
  timeout: number;
  retry: number;
  wrapupTime: number;
  maxLen: number;
  weight: number;
  /** Conditions under which members do not count; undefined: joining/staying is always allowed. */
  joinEmpty: EmptyCondition[] | undefined;
  leaveEmpty: EmptyCondition[] | undefined;
  ringInUse: boolean;
  musicClass: string;
  announceFrequency: number;
  announcePosition: boolean;
  announceHoldTime: boolean;
  periodicAnnounce: string[];
  periodicAnnounceFrequency: number;
  serviceLevel: number;
  /** The queuerules.conf rule a caller follows when Queue() names none. */
  defaultRule: string;
  members: StaticMember[];
}

export interface QueuesConfig {
  persistentMembers: boolean;
  queues: Map<string, QueueConfig>;
  /** queuerules.conf */
  rules: PenaltyRules;
}

export function defaultQueue(name: string): QueueConfig {
  return {
    name,
    strategy: 'ringall',
    timeout: 15,
    retry: 5,
    wrapupTime: 0,
    maxLen: 0,
    weight: 0,
    joinEmpty: undefined,
    leaveEmpty: undefined,
    ringInUse: true,
    musicClass: '',
    announceFrequency: 0,
    announcePosition: true,
    announceHoldTime: false,
    periodicAnnounce: ['queue-periodic-announce'],
    periodicAnnounceFrequency: 0,
    serviceLevel: 60,
    defaultRule: '',
    members: [],
  };
}

/** `yes` → no restriction; `no` → the original's strict set; otherwise the listed conditions. */
function parseEmpty(option: IniOption): EmptyCondition[] | undefined {
  const value = option.value.trim().toLowerCase();
  if (['yes', 'true', '1', ''].includes(value)) return undefined;
  if (['no', 'false', '0', 'strict'].includes(value)) return ['penalty', 'paused', 'invalid', 'unavailable'];
  const list = value.split(',').map((v) => v.trim());
  for (const item of list)
    if (!(EMPTY_CONDITIONS as readonly string[]).includes(item)) throw invalid(option, `unknown condition '${item}'`);
  return list as EmptyCondition[];
}

export function parseMemberLine(text: string): StaticMember {
  const [iface = '', penalty = '0', name = '', stateInterface = ''] = text.split(',').map((v) => v.trim());
  const penaltyNumber = Number(penalty || '0');
  if (!/^[A-Za-z]+\/\S+$/.test(iface)) throw new Error(`'${iface}' is not an interface such as SIP/alice`);
  if (!Number.isInteger(penaltyNumber) || penaltyNumber < 0) throw new Error(`penalty '${penalty}' is not a whole number`);
  return { interface: iface, penalty: penaltyNumber, name: name || iface, stateInterface: stateInterface || iface };
}

export function readQueuesConfig(confDir: string, log: Logger): QueuesConfig {
  const config: QueuesConfig = { persistentMembers: true, queues: new Map(), rules: readQueueRules(confDir, log) };
  const doc = readIniFile(resolve(confDir, QUEUES_CONFIG_FILE));
  if (doc === undefined) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name.toLowerCase() === 'general') {
      for (const option of section.options) {
        if (option.key === 'persistentmembers') config.persistentMembers = parseBool(option);
        else warnUnsupported(log, option, section.name);
      }
      continue;
    }
    const queue = defaultQueue(section.name);
    for (const option of section.options) readQueueOption(queue, option, log, section.name);
    if (queue.defaultRule !== '' && !config.rules.has(queue.defaultRule))
      log.warn(
        { queue: section.name, rule: queue.defaultRule },
        'defaultrule names no rule of queuerules.conf; callers keep their penalty range',
      );
    config.queues.set(section.name, queue);
  }
  return config;
}

function readQueueOption(queue: QueueConfig, option: IniOption, log: Logger, section: string): void {
  switch (option.key) {
    case 'strategy': {
      const value = option.value.trim().toLowerCase();
      if (!(STRATEGIES as readonly string[]).includes(value)) throw invalid(option, `strategy must be one of ${STRATEGIES.join(', ')}`);
      queue.strategy = value as Strategy;
      return;
    }
    case 'timeout':
      queue.timeout = parseInteger(option, 0, 3600);
      return;
    case 'retry':
      queue.retry = parseInteger(option, 0, 3600);
      return;
    case 'wrapuptime':
      queue.wrapupTime = parseInteger(option, 0, 86_400);
      return;
    case 'maxlen':
      queue.maxLen = parseInteger(option, 0, 100_000);
      return;
    case 'weight':
      queue.weight = parseInteger(option, 0, 1000);
      return;
    case 'joinempty':
      queue.joinEmpty = parseEmpty(option);
      return;
    case 'leaveempty':
      queue.leaveEmpty = parseEmpty(option);
      return;
    case 'ringinuse':
      queue.ringInUse = parseBool(option);
      return;
    case 'musicclass':
    case 'musiconhold':
      queue.musicClass = option.value.trim();
      return;
    case 'announce-frequency':
      queue.announceFrequency = parseInteger(option, 0, 86_400);
      return;
    case 'announce-position':
      queue.announcePosition = !['no', 'false', '0'].includes(option.value.trim().toLowerCase());
      return;
    case 'announce-holdtime':
      queue.announceHoldTime = ['yes', 'true', '1', 'once'].includes(option.value.trim().toLowerCase());
      return;
    case 'periodic-announce':
      queue.periodicAnnounce = option.value
        .split(/[,|]/)
        .map((v) => v.trim())
        .filter((v) => v !== '');
      return;
    case 'periodic-announce-frequency':
      queue.periodicAnnounceFrequency = parseInteger(option, 0, 86_400);
      return;
    case 'servicelevel':
      queue.serviceLevel = parseInteger(option, 0, 86_400);
      return;
    case 'defaultrule':
      queue.defaultRule = option.value.trim();
      return;
    case 'member':
      try {
        queue.members.push(parseMemberLine(option.value));
      } catch (err) {
        throw invalid(option, err instanceof Error ? err.message : String(err));
      }
      return;
    default:
      warnUnsupported(log, option, section);
  }
}
