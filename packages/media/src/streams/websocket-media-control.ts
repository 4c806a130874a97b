/**
 * The text side of the WebSocket media channel protocol (the reference's chan_websocket, plain-text
 * control messages): binary frames carry audio, text frames carry these. Events we send:
 * MEDIA_START (first), MEDIA_XOFF / MEDIA_XON (flow control of what the application sends),
 * QUEUE_DRAINED, MEDIA_BUFFERING_COMPLETED, MEDIA_MARK_PROCESSED and STATUS. Commands we accept:
 * ANSWER, HANGUP, START_MEDIA_BUFFERING, STOP_MEDIA_BUFFERING, FLUSH_MEDIA, MARK_MEDIA,
 * GET_STATUS, REPORT_QUEUE_DRAINED, PAUSE_MEDIA, CONTINUE_MEDIA.
 */

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
  | { command: 'CONTINUE_MEDIA' };

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
]);

/** A text frame → a command, or undefined for anything else (unknown commands are ignored, not fatal). */
export function parseMediaCommand(text: string): MediaCommand | undefined {
  const [word = '', argument] = text.trim().split(/\s+/, 2);
  const name = word.toUpperCase() as MediaCommand['command'];
  if (!COMMANDS.has(name)) return undefined;
  if (name === 'STOP_MEDIA_BUFFERING' || name === 'MARK_MEDIA') {
    return argument !== undefined ? { command: name, correlationId: argument } : { command: name };
  }
  return { command: name } as MediaCommand;
}

export function mediaStartMessage(fields: {
  connectionId: string;
  channel: string;
  format: string;
  frameBytes: number;
  ptimeMs: number;
}): string {
  return `MEDIA_START connection_id:${fields.connectionId} channel:${fields.channel} format:${fields.format} optimal_frame_size:${fields.frameBytes} ptime:${fields.ptimeMs}`;
}

export interface QueueStatus {
  queueLength: number;
  xonLevel: number;
  xoffLevel: number;
  queueFull: boolean;
  bulkMedia: boolean;
  mediaPaused: boolean;
}

export function statusMessage(status: QueueStatus): string {
  return (
    `STATUS queue_length:${status.queueLength} xon_level:${status.xonLevel} xoff_level:${status.xoffLevel} ` +
    `queue_full:${status.queueFull} bulk_media:${status.bulkMedia} media_paused:${status.mediaPaused}`
  );
}

/** `MEDIA_BUFFERING_COMPLETED` / `MEDIA_MARK_PROCESSED`, with the correlation id when one was given. */
export function withCorrelation(event: string, correlationId: string | undefined): string {
  return correlationId === undefined ? event : `${event} ${correlationId}`;
}
