/**
 * Reading and writing channel variables through the API (getChannelVar/setChannelVar and the
 * originate `variables`): plain names, and the dialplan functions operators use on channels —
 * `CALLERID(num|name|all)`, `CHANNEL(…)` reads, `TALK_DETECT(set|remove)` writes.
 */
import type { Channel } from './channel.js';
import { invalidArgument, notFound } from '../errors.js';
import type { MediaEngine, TalkDetectionOptions, ToneDetectionOptions } from '../media/media-engine.js';
import { channelVariable } from '../pbx/channel-variables.js';
import { TRANSFER_HANDLING_VARIABLE } from './channel-transfer.js';
import { writeOutgoingHeader } from '../pbx/functions/request-headers.js';

const FUNCTION_CALL = /^([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$/s;

/** TALK_DETECT(set) defaults, as operators know them: 2500 ms of silence, average level 256. */
const DEFAULT_TALK_DETECTION: TalkDetectionOptions = { energyThreshold: 256, talkMs: 0, silenceMs: 2500 };

export interface VariableSetting {
  name: string;
  /** Absent: the variable is removed. */
  value: string | undefined;
  reportEvents: boolean;
}

export class ChannelVariableAccess {
  readonly #globals: ReadonlyMap<string, string>;
  readonly #media: MediaEngine;

  constructor(deps: { globals: ReadonlyMap<string, string>; media: MediaEngine }) {
    this.#globals = deps.globals;
    this.#media = deps.media;
  }

  /** 400 for an empty name or a function that cannot be read, 404 for a variable that is not set. */
  get(channel: Channel, expression: string): string {
    const name = expression.trim();
    if (name.length === 0) throw invalidArgument('Variable name is required');
    const call = FUNCTION_CALL.exec(name);
    const value = call
      ? channelVariable(channel, call[1] ?? '', call[2] ?? '', channel.dialplan, this.#globals)
      : channelVariable(channel, name, undefined, channel.dialplan, this.#globals);
    if (value !== undefined) return value;
    if (call) throw invalidArgument(`Function ${call[1]} cannot be read`);
    throw notFound('Provided variable was not found');
  }

  async set(channel: Channel, setting: VariableSetting): Promise<void> {
    const name = setting.name.trim();
    if (name.length === 0) throw invalidArgument('Variable name is required');
    const call = FUNCTION_CALL.exec(name);
    if (call) {
      await this.#writeFunction(channel, (call[1] ?? '').toUpperCase(), (call[2] ?? '').trim(), setting.value ?? '');
      return;
    }
    if (setting.value === undefined) channel.unsetVariable(name);
    else channel.setVariable(name, setting.value);
    if (setting.reportEvents) channel.reportVariable(name);
  }

  async #writeFunction(channel: Channel, fn: string, args: string, value: string): Promise<void> {
    switch (fn) {
      case 'CALLERID':
        channel.setCaller(callerWith(channel, args.toLowerCase(), value));
        return;
      case 'CHANNEL':
        if (args.toLowerCase() !== 'language') break;
        channel.language = value;
        return;
      case 'PJSIP_HEADER': {
        // A header for the INVITE of a channel not dialled yet (originate's variables).
        const problem = writeOutgoingHeader(channel, args, value);
        if (problem !== undefined) throw invalidArgument(problem);
        return;
      }
      case TRANSFER_HANDLING_VARIABLE:
        // PJSIP_TRANSFER_HANDLING()=ari-only: a REFER is left to the application (channel-transfer.ts).
        channel.setVariable(TRANSFER_HANDLING_VARIABLE, value.trim());
        return;
      case 'TONE_DETECT': {
        // TONE_DETECT(freq[,duration_ms]) starts detection (ChannelToneDetected); TONE_DETECT(remove) stops it.
        const legId = channel.tech.mediaLegId;
        if (!legId) throw invalidArgument('Channel has no media for tone detection');
        await this.#media.setToneDetection(legId, args.toLowerCase() === 'remove' ? null : toneDetectionOptions(args));
        return;
      }
      case 'TALK_DETECT': {
        const legId = channel.tech.mediaLegId;
        if (!legId) throw invalidArgument('Channel has no media for talk detection');
        const mode = args.toLowerCase();
        if (mode === 'remove') {
          await this.#media.setTalkDetection(legId, null);
          return;
        }
        if (mode !== 'set') break;
        await this.#media.setTalkDetection(legId, talkDetectionOptions(value));
        return;
      }
    }
    throw invalidArgument(`Function ${fn}(${args}) cannot be written`);
  }
}

function callerWith(channel: Channel, field: string, value: string): Channel['caller'] {
  switch (field) {
    case 'num':
    case 'number':
      return { ...channel.caller, number: value };
    case 'name':
      return { ...channel.caller, name: value };
    case 'all':
      return parseCallerId(value);
  }
  throw invalidArgument(`CALLERID(${field}) cannot be written`);
}

/** `"Alice" <100>`, `Alice <100>` or `100`. */
export function parseCallerId(text: string): Channel['caller'] {
  const match = /^\s*(?:"([^"]*)"|([^<]*?))\s*<([^>]*)>\s*$/.exec(text);
  if (match) return { name: (match[1] ?? match[2] ?? '').trim(), number: (match[3] ?? '').trim() };
  return { name: '', number: text.trim() };
}

/** `TALK_DETECT(set)=[silence ms[,talking level]]`. */
const DEFAULT_TONE_DURATION_MS = 500;

/** `freq[,duration_ms[,options]]`; options of the reference (goto, hangup, squelch…) are not taken. */
function toneDetectionOptions(args: string): ToneDetectionOptions {
  const [frequency = '', duration = '', options = ''] = args.split(',').map((a) => a.trim());
  const frequencyHz = Number(frequency);
  if (frequency === '' || !Number.isFinite(frequencyHz) || frequencyHz <= 0 || frequencyHz >= 4000) {
    throw invalidArgument('TONE_DETECT needs a frequency between 0 and 4000 Hz');
  }
  const durationMs = duration === '' ? DEFAULT_TONE_DURATION_MS : Number(duration);
  if (!Number.isInteger(durationMs) || durationMs < 0 || durationMs > 60_000)
    throw invalidArgument('TONE_DETECT duration must be 0-60000 ms');
  if (options !== '') throw invalidArgument(`TONE_DETECT options '${options}' are not supported`);
  return { frequencyHz, durationMs };
}

function talkDetectionOptions(value: string): TalkDetectionOptions {
  const [silence, level] = value.split(',').map((part) => part.trim());
  const options = { ...DEFAULT_TALK_DETECTION };
  if (silence) options.silenceMs = positiveInteger(silence, 'silence threshold');
  if (level) options.energyThreshold = positiveInteger(level, 'talking threshold');
  return options;
}

function positiveInteger(text: string, what: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n <= 0) throw invalidArgument(`TALK_DETECT ${what} must be a positive integer`);
  return n;
}
