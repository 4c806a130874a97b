/**
 * The text side of the WebSocket media channel protocol (the reference's chan_websocket): binary
 * frames carry audio, text frames carry control messages, in one of two formats chosen per call
 * (chan_websocket.conf `control_message_format`, or `f(json)` in the dial options):
 *
 *   plain-text   one line, the name then its parameters: `STOP_MEDIA_BUFFERING 61ea…`,
 *                `MEDIA_START connection_id:… channel:… channel_id:… format:ulaw optimal_frame_size:160 ptime:20`
 *   json         one object per frame: commands `{"command": "STOP_MEDIA_BUFFERING", "correlation_id": "…"}`,
 *                events `{"event": "MEDIA_START", "channel_id": "…", …}`; only JSON carries
 *                `channel_variables` in MEDIA_START and `channel_id` in every event.
 *
 * Events we send: MEDIA_START (first), MEDIA_XOFF / MEDIA_XON (flow control of what the
 * application sends), QUEUE_DRAINED, MEDIA_BUFFERING_COMPLETED, MEDIA_MARK_PROCESSED, STATUS and
 * DTMF_END (a digit sent to the channel).
 * Commands we accept: ANSWER, HANGUP, START_MEDIA_BUFFERING, STOP_MEDIA_BUFFERING, FLUSH_MEDIA,
 * MARK_MEDIA, GET_STATUS, REPORT_QUEUE_DRAINED, PAUSE_MEDIA, CONTINUE_MEDIA, SET_MEDIA_DIRECTION.
 */
import type { ControlFormat, MediaDirection } from './stream-types.js';

export const WEBSOCKET_MEDIA_PROTOCOL = 'media';

export type MediaCommand =
  | { command: 'ANSWER' }
  | { command: 'HANGUP' }
  | { command: 'START_MEDIA_BUFFERING' }
  | { command: 'STOP_MEDIA_BUFFERING'; correlationId?: string }
  | { command: 'FLUSH_MEDIA' }
  | { command: 'MARK_MEDIA'; correlationId?: string }
  | { command: 'GET_STATUS' }
  | { command: 'REPORT_QUEUE_DRAINED' }
  | { command: 'PAUSE_MEDIA' }
  | { command: 'CONTINUE_MEDIA' }
  | { command: 'SET_MEDIA_DIRECTION'; direction: MediaDirection };

const COMMANDS = new Set<MediaCommand['command']>([
  'ANSWER',
  'HANGUP',
  'START_MEDIA_BUFFERING',
  'STOP_MEDIA_BUFFERING',
  'FLUSH_MEDIA',
  'MARK_MEDIA',
  'GET_STATUS',
  'REPORT_QUEUE_DRAINED',
  'PAUSE_MEDIA',
  'CONTINUE_MEDIA',
  'SET_MEDIA_DIRECTION',
]);

const DIRECTIONS = new Set<string>(['both', 'in', 'out']);

/** Builds a command from its name and parameters, whichever format they came in; undefined when unusable. */
function command(name: string, correlationId: string | undefined, direction: string | undefined): MediaCommand | undefined {
  const upper = name.toUpperCase() as MediaCommand['command'];
  if (!COMMANDS.has(upper)) return undefined;
  switch (upper) {
    case 'STOP_MEDIA_BUFFERING':
    case 'MARK_MEDIA':
      return correlationId !== undefined && correlationId !== '' ? { command: upper, correlationId } : { command: upper };
    case 'SET_MEDIA_DIRECTION': {
      const value = direction?.toLowerCase();
      return value !== undefined && DIRECTIONS.has(value) ? { command: upper, direction: value as MediaDirection } : undefined;
    }
    default:
      return { command: upper } as MediaCommand;
  }
}

/**
 * A text frame → a command, or undefined for anything else (unknown or malformed commands are
 * ignored, not fatal). Plain text: `NAME [argument]` (SET_MEDIA_DIRECTION's argument may also be
 * written `direction:in`); JSON: `{"command": NAME, "correlation_id"?, "direction"?}`.
 */
export function parseMediaCommand(text: string, format: ControlFormat = 'plain-text'): MediaCommand | undefined {
  if (format === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const fields = parsed as Record<string, unknown>;
    if (typeof fields.command !== 'string') return undefined;
    const correlation = fields.correlation_id;
    return command(
      fields.command,
      typeof correlation === 'string' || typeof correlation === 'number' ? String(correlation) : undefined,
      typeof fields.direction === 'string' ? fields.direction : undefined,
    );
  }
  const [word = '', argument] = text.trim().split(/\s+/, 2);
  const value = argument?.replace(/^direction:/i, '');
  return command(word, argument, value);
}

/** What MEDIA_START reports. */
export interface MediaStart {
  connectionId: string;
  channel: string;
  channelId: string;
  format: string;
  frameBytes: number;
  ptimeMs: number;
  channelVariables: Readonly<Record<string, string>>;
}

export interface QueueStatus {
  queueLength: number;
  xonLevel: number;
  xoffLevel: number;
  queueFull: boolean;
  bulkMedia: boolean;
  mediaPaused: boolean;
}

/** The events we send, before formatting. */
export type MediaEvent =
  | { event: 'MEDIA_START'; start: MediaStart }
  | { event: 'MEDIA_XOFF' | 'MEDIA_XON' | 'QUEUE_DRAINED' }
  | { event: 'MEDIA_BUFFERING_COMPLETED' | 'MEDIA_MARK_PROCESSED'; correlationId?: string }
  | { event: 'STATUS'; status: QueueStatus }
  | { event: 'DTMF_END'; digit: string };

/** An event as the text frame of its format; `channelId` goes in every JSON event. */
export function formatMediaEvent(event: MediaEvent, format: ControlFormat, channelId: string): string {
  return format === 'json' ? JSON.stringify(jsonEvent(event, channelId)) : plainEvent(event);
}

function plainEvent(event: MediaEvent): string {
  switch (event.event) {
    case 'MEDIA_START': {
      const s = event.start;
      return (
        `MEDIA_START connection_id:${s.connectionId} channel:${s.channel} channel_id:${s.channelId} ` +
        `format:${s.format} optimal_frame_size:${s.frameBytes} ptime:${s.ptimeMs}`
      );
    }
    case 'STATUS': {
      const s = event.status;
      return (
        `STATUS queue_length:${s.queueLength} xon_level:${s.xonLevel} xoff_level:${s.xoffLevel} ` +
        `queue_full:${s.queueFull} bulk_media:${s.bulkMedia} media_paused:${s.mediaPaused}`
      );
    }
    case 'MEDIA_BUFFERING_COMPLETED':
    case 'MEDIA_MARK_PROCESSED':
      return event.correlationId === undefined ? event.event : `${event.event} ${event.correlationId}`;
    case 'DTMF_END':
      return `DTMF_END digit:${event.digit}`;
    default:
      return event.event;
  }
}

function jsonEvent(event: MediaEvent, channelId: string): Record<string, unknown> {
  switch (event.event) {
    case 'MEDIA_START': {
      const s = event.start;
      return {
        event: event.event,
        connection_id: s.connectionId,
        channel: s.channel,
        channel_id: s.channelId,
        format: s.format,
        optimal_frame_size: s.frameBytes,
        ptime: s.ptimeMs,
        channel_variables: { ...s.channelVariables },
      };
    }
    case 'STATUS': {
      const s = event.status;
      return {
        event: event.event,
        channel_id: channelId,
        queue_length: s.queueLength,
        xon_level: s.xonLevel,
        xoff_level: s.xoffLevel,
        queue_full: s.queueFull,
        bulk_media: s.bulkMedia,
        media_paused: s.mediaPaused,
      };
    }
    case 'MEDIA_BUFFERING_COMPLETED':
    case 'MEDIA_MARK_PROCESSED':
      return {
        event: event.event,
        channel_id: channelId,
        ...(event.correlationId !== undefined ? { correlation_id: event.correlationId } : {}),
      };
    case 'DTMF_END':
      return { event: event.event, channel_id: channelId, digit: event.digit };
    default:
      return { event: event.event, channel_id: channelId };
  }
}
