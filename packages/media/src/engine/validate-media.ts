/**
 * Checks of the programmable-media requests (tones, bridges, recordings, DTMF, snoop, detection)
 * on the main thread, so a bad value is refused with `invalid_argument` before it reaches a worker.
 * Each returns a plain copy holding only the fields a worker needs.
 */
import { isCodecSupported } from '../codecs/index.js';
import { InvalidArgumentError } from '../errors.js';
import { CHANNEL_FORMATS, isChannelFormat } from '../worker/channel-format.js';
import { MAX_RTP_TIMEOUT_SECONDS } from '../worker/rtp-timeouts.js';
import type {
  BridgeKind,
  BridgeVideoRequest,
  ChannelFormat,
  JoinBridgeOptions,
  MediaVideoMode,
  MediaTarget,
  RecordingFormat,
  SnoopDirection,
  StartRecordingRequest,
  TalkDetectionOptions,
  ToneDetectionOptions,
  ToneSegment,
} from '@switchboard/media-control';

const FORMATS: readonly RecordingFormat[] = ['wav', 'ulaw', 'alaw', 'g722', 'sln', 'ogg', 'mp3'];
const DIRECTIONS: readonly SnoopDirection[] = ['none', 'in', 'out', 'both'];
/** Nyquist limit of the 8 kHz frames tones are generated into. */
const MAX_TONE_HZ = 4000;

const isNonNegative = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function nonEmpty(what: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidArgumentError(`${what} must be a non-empty string`);
  return value;
}

function optionalDuration(what: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (!isNonNegative(value)) throw new InvalidArgumentError(`${what} must be a non-negative number, got ${String(value)}`);
  return value;
}

export function validateTarget(target: MediaTarget): MediaTarget {
  if (typeof target !== 'object' || target === null) throw new InvalidArgumentError('media target is missing');
  if (target.kind === 'leg') return { kind: 'leg', legId: nonEmpty('legId', target.legId) };
  if (target.kind === 'bridge') return { kind: 'bridge', bridgeId: nonEmpty('bridgeId', target.bridgeId) };
  throw new InvalidArgumentError(`media target kind must be leg or bridge, got ${String((target as { kind?: unknown }).kind)}`);
}

export function validateSegments(segments: readonly ToneSegment[]): ToneSegment[] {
  if (!Array.isArray(segments) || segments.length === 0) throw new InvalidArgumentError('a tone needs at least one segment');
  return segments.map((segment, index) => {
    if (!Array.isArray(segment.frequencies) || segment.frequencies.some((f: unknown) => !isNonNegative(f) || f > MAX_TONE_HZ)) {
      throw new InvalidArgumentError(`tone segment ${index}: frequencies must be numbers in 0-${MAX_TONE_HZ} Hz`);
    }
    if (!isNonNegative(segment.durationMs))
      throw new InvalidArgumentError(`tone segment ${index}: durationMs must be a non-negative number`);
    const copy: ToneSegment = { frequencies: [...segment.frequencies], durationMs: segment.durationMs };
    if (segment.modulated === true) copy.modulated = true;
    if (segment.once === true) copy.once = true;
    return copy;
  });
}

export function validateBridgeKind(kind: BridgeKind): BridgeKind {
  if (kind !== 'mixing' && kind !== 'holding') throw new InvalidArgumentError(`bridge kind must be mixing or holding, got ${String(kind)}`);
  return kind;
}

export function validateJoinOptions(options: JoinBridgeOptions | undefined): JoinBridgeOptions {
  const copy: JoinBridgeOptions = {};
  if (options === undefined) return copy;
  if (options.role !== undefined) {
    if (options.role !== 'participant' && options.role !== 'announcer')
      throw new InvalidArgumentError(`role must be participant or announcer, got ${String(options.role)}`);
    copy.role = options.role;
  }
  if (options.mute !== undefined) copy.mute = options.mute === true;
  if (options.absorbDtmf !== undefined) copy.absorbDtmf = options.absorbDtmf === true;
  if (options.listenGain !== undefined) copy.listenGain = validateGain('listenGain', options.listenGain);
  return copy;
}

/** A gain factor from 0 (silence) to 16 (+24 dB). */
export function validateGain(what: string, gain: number): number {
  if (typeof gain !== 'number' || !Number.isFinite(gain) || gain < 0 || gain > 16)
    throw new InvalidArgumentError(`${what} must be a number from 0 to 16, got ${String(gain)}`);
  return gain;
}

/** An RTP timeout: whole seconds, 0 (off) to a year. */
export function validateRtpTimeout(seconds: number): number {
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_RTP_TIMEOUT_SECONDS)
    throw new InvalidArgumentError(
      `RTP timeout must be a whole number of seconds from 0 to ${MAX_RTP_TIMEOUT_SECONDS}, got ${String(seconds)}`,
    );
  return seconds;
}

export function validateRecording(request: StartRecordingRequest): StartRecordingRequest {
  const copy: StartRecordingRequest = {
    recordingId: nonEmpty('recordingId', request.recordingId),
    file: nonEmpty('file', request.file),
    format: request.format,
  };
  if (!FORMATS.includes(request.format))
    throw new InvalidArgumentError(`recording format must be one of ${FORMATS.join(', ')}, got ${String(request.format)}`);
  if (request.append === true) copy.append = true;
  const maxDurationMs = optionalDuration('maxDurationMs', request.maxDurationMs);
  if (maxDurationMs !== undefined) copy.maxDurationMs = maxDurationMs;
  const maxSilenceMs = optionalDuration('maxSilenceMs', request.maxSilenceMs);
  if (maxSilenceMs !== undefined) copy.maxSilenceMs = maxSilenceMs;
  if (request.beep === true) copy.beep = true;
  if (request.terminateOn !== undefined) {
    if (typeof request.terminateOn !== 'string') throw new InvalidArgumentError('terminateOn must be a string');
    copy.terminateOn = request.terminateOn;
  }
  if (request.recorderFormat !== undefined) copy.recorderFormat = validateChannelFormat('recorderFormat', request.recorderFormat);
  return copy;
}

/** An announcer or recorder format (@switchboard/media-control ChannelFormat). */
export function validateChannelFormat(name: string, value: unknown): ChannelFormat {
  if (typeof value !== 'string' || !isChannelFormat(value))
    throw new InvalidArgumentError(`${name} must be one of ${CHANNEL_FORMATS.join(', ')}, got ${String(value)}`);
  if (value === 'g722' && !isCodecSupported('G722'))
    throw new InvalidArgumentError(`${name} g722 needs the G.722 codec, which is not built in`);
  return value;
}

export function validateDtmf(request: { digits: string; durationMs: number; betweenMs: number }): {
  digits: string;
  durationMs: number;
  betweenMs: number;
} {
  const digits = nonEmpty('digits', request.digits);
  if (!/^[0-9*#A-Da-d]+$/.test(digits)) throw new InvalidArgumentError(`digits may hold 0-9, *, # and A-D only, got ${digits}`);
  const durationMs = optionalDuration('durationMs', request.durationMs) ?? 100;
  const betweenMs = optionalDuration('betweenMs', request.betweenMs) ?? 100;
  return { digits, durationMs, betweenMs };
}

export function validateSnoopDirection(what: string, direction: SnoopDirection): SnoopDirection {
  if (!DIRECTIONS.includes(direction))
    throw new InvalidArgumentError(`${what} must be one of ${DIRECTIONS.join(', ')}, got ${String(direction)}`);
  return direction;
}

/** TONE_DETECT: a frequency the 8 kHz detector can hear and a duration of at most a minute. */
export function validateToneDetection(options: ToneDetectionOptions | null): ToneDetectionOptions | null {
  if (options === null) return null;
  const { frequencyHz, durationMs } = options;
  if (!Number.isFinite(frequencyHz) || frequencyHz <= 0 || frequencyHz >= 4000) {
    throw new InvalidArgumentError('tone detection needs a frequency between 0 and 4000 Hz');
  }
  if (!Number.isFinite(durationMs) || durationMs < 0 || durationMs > 60_000) {
    throw new InvalidArgumentError('tone detection needs a duration of 0 to 60000 ms');
  }
  return { frequencyHz, durationMs };
}

/** Snoop gains are finite factors from 0 to 16 (a recording's volume options go up to 4). */
export function validateSpyGain(gain: { in: number; out: number }): { in: number; out: number } {
  for (const value of [gain.in, gain.out]) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 16)
      throw new InvalidArgumentError(`spyGain factors must be numbers from 0 to 16, got ${String(value)}`);
  }
  return { in: gain.in, out: gain.out };
}

export function validateTalkDetection(options: TalkDetectionOptions | null): TalkDetectionOptions | null {
  if (options === null) return null;
  if (!isNonNegative(options.energyThreshold) || !isNonNegative(options.talkMs) || !isNonNegative(options.silenceMs)) {
    throw new InvalidArgumentError('talk detection needs non-negative energyThreshold, talkMs and silenceMs');
  }
  return { energyThreshold: options.energyThreshold, talkMs: options.talkMs, silenceMs: options.silenceMs };
}

const VIDEO_MODES: readonly MediaVideoMode[] = ['none', 'talker', 'single', 'sfu'];

export function validateBridgeVideo(request: BridgeVideoRequest): BridgeVideoRequest {
  if (typeof request !== 'object' || request === null) throw new InvalidArgumentError('bridge video request is missing');
  if (!VIDEO_MODES.includes(request.mode)) {
    throw new InvalidArgumentError(`video mode must be one of ${VIDEO_MODES.join(', ')}, got ${String(request.mode)}`);
  }
  const copy: BridgeVideoRequest = { mode: request.mode };
  if (request.mode === 'single') copy.sourceLegId = nonEmpty('sourceLegId', request.sourceLegId);
  return copy;
}
