/**
 * confbridge.conf with the original's names: sections of `type = bridge`, `type = user` and
 * `type = menu`. The profiles `default_bridge` and `default_user` always exist (a file may
 * redefine them); a menu maps DTMF sequences to actions. The same option setters serve
 * CONFBRIDGE(bridge|user,option)=value, so a dynamic profile accepts exactly what the file does.
 *
 *   bridge:  max_members (0: no limit), record_conference, record_file, language
 *   user:    admin, marked, pin, startmuted, wait_marked, end_marked, quiet,
 *            music_on_hold_when_empty, music_on_hold_class, announce_join_leave (the user
 *            records a name on joining; it is said before "has joined" / "has left"),
 *            announce_user_count (the joining user hears how many others are in),
 *            announce_user_count_all (yes, or a number: everyone hears the count when someone
 *            joins and more than that many are in), announce_only_user, talk_detection_events,
 *            dtmf_passage, dsp_talking_threshold, dsp_silence_threshold
 *   menu:    <digits> = toggle_mute | leave_conference | admin_kick_last |
 *            admin_toggle_conference_lock | participant_count |
 *            increase_listening_volume | decrease_listening_volume | reset_listening_volume |
 *            no_op | playback(file)
 */
import { resolve } from 'node:path';
import { readIniFile } from '../../../config/ini-file.js';
import { type IniSection, lastOption } from '../../../config/ini.js';
import { warnUnsupported, warnUnsupportedSection } from '../../../config/option-table.js';
import { invalid } from '../../../config/values.js';
import type { Logger } from '../../../util/logger.js';

export const CONFBRIDGE_CONFIG_FILE = 'confbridge.conf';

export interface BridgeProfile {
  name: string;
  maxMembers: number;
  recordConference: boolean;
  recordFile: string;
  language: string;
}

export interface UserProfile {
  name: string;
  admin: boolean;
  marked: boolean;
  pin: string;
  startMuted: boolean;
  waitMarked: boolean;
  endMarked: boolean;
  quiet: boolean;
  musicOnHoldWhenEmpty: boolean;
  musicOnHoldClass: string;
  announceJoinLeave: boolean;
  announceUserCount: boolean;
  /** Everyone hears the count when someone joins and more than this many are in; undefined: never. */
  announceUserCountAll: number | undefined;
  announceOnlyUser: boolean;
  talkDetectionEvents: boolean;
  dtmfPassage: boolean;
  talkingThreshold: number;
  silenceThresholdMs: number;
}

export type MenuAction =
  | { kind: 'toggle_mute' }
  | { kind: 'leave_conference' }
  | { kind: 'admin_kick_last' }
  | { kind: 'admin_toggle_conference_lock' }
  | { kind: 'participant_count' }
  | { kind: 'increase_listening_volume' }
  | { kind: 'decrease_listening_volume' }
  | { kind: 'reset_listening_volume' }
  | { kind: 'no_op' }
  | { kind: 'playback'; file: string };

export interface MenuProfile {
  name: string;
  /** DTMF sequence → actions run in order. */
  entries: Map<string, MenuAction[]>;
}

export interface ConfBridgeConfig {
  bridges: Map<string, BridgeProfile>;
  users: Map<string, UserProfile>;
  menus: Map<string, MenuProfile>;
}

export class ConfBridgeOptionError extends Error {}

export function defaultBridgeProfile(name = 'default_bridge'): BridgeProfile {
  return { name, maxMembers: 0, recordConference: false, recordFile: '', language: '' };
}

export function defaultUserProfile(name = 'default_user'): UserProfile {
  return {
    name,
    admin: false,
    marked: false,
    pin: '',
    startMuted: false,
    waitMarked: false,
    endMarked: false,
    quiet: false,
    musicOnHoldWhenEmpty: false,
    musicOnHoldClass: '',
    announceJoinLeave: false,
    announceUserCount: false,
    announceUserCountAll: undefined,
    announceOnlyUser: true,
    talkDetectionEvents: false,
    dtmfPassage: false,
    talkingThreshold: 160,
    silenceThresholdMs: 2500,
  };
}

function bool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['yes', 'true', 'on', '1', 'y'].includes(v)) return true;
  if (['no', 'false', 'off', '0', 'n'].includes(v)) return false;
  throw new ConfBridgeOptionError(`'${value}' is not yes or no`);
}

function integer(value: string, min: number, max: number): number {
  const n = Number(value.trim());
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfBridgeOptionError(`'${value}' is not a whole number from ${min} to ${max}`);
  return n;
}

type Setter<P> = (profile: P, value: string) => void;

const BRIDGE_SETTERS: Record<string, Setter<BridgeProfile>> = {
  max_members: (p, v) => {
    p.maxMembers = integer(v, 0, 100_000);
  },
  record_conference: (p, v) => {
    p.recordConference = bool(v);
  },
  record_file: (p, v) => {
    p.recordFile = v.trim();
  },
  language: (p, v) => {
    p.language = v.trim();
  },
};

const USER_SETTERS: Record<string, Setter<UserProfile>> = {
  admin: (p, v) => {
    p.admin = bool(v);
  },
  marked: (p, v) => {
    p.marked = bool(v);
  },
  pin: (p, v) => {
    if (!/^[0-9*]*$/.test(v.trim())) throw new ConfBridgeOptionError(`pin '${v}' may hold digits and * only`);
    p.pin = v.trim();
  },
  startmuted: (p, v) => {
    p.startMuted = bool(v);
  },
  wait_marked: (p, v) => {
    p.waitMarked = bool(v);
  },
  end_marked: (p, v) => {
    p.endMarked = bool(v);
  },
  quiet: (p, v) => {
    p.quiet = bool(v);
  },
  music_on_hold_when_empty: (p, v) => {
    p.musicOnHoldWhenEmpty = bool(v);
  },
  music_on_hold_class: (p, v) => {
    p.musicOnHoldClass = v.trim();
  },
  announce_join_leave: (p, v) => {
    p.announceJoinLeave = bool(v);
  },
  announce_user_count: (p, v) => {
    p.announceUserCount = bool(v);
  },
  announce_user_count_all: (p, v) => {
    // yes: whenever someone joins; a number: only when more than that many are in.
    p.announceUserCountAll = /^\s*\d+\s*$/.test(v) ? integer(v, 0, 100_000) : bool(v) ? 0 : undefined;
  },
  announce_only_user: (p, v) => {
    p.announceOnlyUser = bool(v);
  },
  talk_detection_events: (p, v) => {
    p.talkDetectionEvents = bool(v);
  },
  dtmf_passage: (p, v) => {
    p.dtmfPassage = bool(v);
  },
  dsp_talking_threshold: (p, v) => {
    p.talkingThreshold = integer(v, 0, 32767);
  },
  dsp_silence_threshold: (p, v) => {
    p.silenceThresholdMs = integer(v, 0, 60_000);
  },
};

/** Sets one option of a bridge profile; false when the option is unknown. */
export function setBridgeOption(profile: BridgeProfile, key: string, value: string): boolean {
  const setter = BRIDGE_SETTERS[key.trim().toLowerCase()];
  if (!setter) return false;
  setter(profile, value);
  return true;
}

/** Sets one option of a user profile; false when the option is unknown. */
export function setUserOption(profile: UserProfile, key: string, value: string): boolean {
  const setter = USER_SETTERS[key.trim().toLowerCase()];
  if (!setter) return false;
  setter(profile, value);
  return true;
}

const SIMPLE_ACTIONS = new Set([
  'toggle_mute',
  'leave_conference',
  'admin_kick_last',
  'admin_toggle_conference_lock',
  'participant_count',
  'increase_listening_volume',
  'decrease_listening_volume',
  'reset_listening_volume',
  'no_op',
]);

/** `toggle_mute`, `playback(file&file)`, or several joined with commas. */
export function parseMenuActions(text: string): MenuAction[] {
  const actions: MenuAction[] = [];
  for (const part of text.split(/,(?![^(]*\))/)) {
    const action = part.trim().toLowerCase();
    const playback = /^playback\((.+)\)$/i.exec(part.trim());
    if (playback) actions.push({ kind: 'playback', file: playback[1] });
    else if (SIMPLE_ACTIONS.has(action)) actions.push({ kind: action } as MenuAction);
    else throw new ConfBridgeOptionError(`unknown menu action '${part.trim()}'`);
  }
  return actions;
}

export function defaultConfBridgeConfig(): ConfBridgeConfig {
  return {
    bridges: new Map([['default_bridge', defaultBridgeProfile()]]),
    users: new Map([['default_user', defaultUserProfile()]]),
    menus: new Map(),
  };
}

export function readConfBridgeConfig(confDir: string, log: Logger): ConfBridgeConfig {
  const config = defaultConfBridgeConfig();
  const doc = readIniFile(resolve(confDir, CONFBRIDGE_CONFIG_FILE));
  if (doc === undefined) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    const type = lastOption(section, 'type')?.value.trim().toLowerCase();
    if (section.name.toLowerCase() === 'general') continue;
    if (type === 'bridge') config.bridges.set(section.name, readProfile(section, defaultBridgeProfile(section.name), setBridgeOption, log));
    else if (type === 'user') config.users.set(section.name, readProfile(section, defaultUserProfile(section.name), setUserOption, log));
    else if (type === 'menu') config.menus.set(section.name, readMenu(section));
    else warnUnsupportedSection(log, section);
  }
  return config;
}

function readProfile<P>(section: IniSection, profile: P, set: (p: P, key: string, value: string) => boolean, log: Logger): P {
  for (const option of section.options) {
    if (option.key === 'type') continue;
    try {
      if (!set(profile, option.key, option.value)) warnUnsupported(log, option, section.name);
    } catch (err) {
      if (err instanceof ConfBridgeOptionError) throw invalid(option, err.message);
      throw err;
    }
  }
  return profile;
}

function readMenu(section: IniSection): MenuProfile {
  const menu: MenuProfile = { name: section.name, entries: new Map() };
  for (const option of section.options) {
    if (option.key === 'type') continue;
    if (!/^[0-9*#A-D]+$/i.test(option.rawKey)) throw invalid(option, `'${option.rawKey}' is not a DTMF sequence`);
    try {
      menu.entries.set(option.rawKey.toUpperCase(), parseMenuActions(option.value));
    } catch (err) {
      if (err instanceof ConfBridgeOptionError) throw invalid(option, err.message);
      throw err;
    }
  }
  return menu;
}
