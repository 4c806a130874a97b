/** The messages between the MediaStreamGateway (main thread) and its worker: requests with ids and matching replies, and notifications. */
import type { OpenedStream, OpenStreamRequest, StreamFrame, StreamNotification } from './stream-types.js';

export type StreamCommand =
  | { type: 'open'; requestId: number; request: OpenStreamRequest }
  | { type: 'attached'; streamId: string }
  | { type: 'input'; streamId: string; frame: StreamFrame }
  | { type: 'close'; streamId: string };

export type StreamWorkerMessage =
  | { type: 'opened'; requestId: number; opened: OpenedStream }
  | { type: 'openFailed'; requestId: number; message: string }
  | { type: 'notification'; notification: StreamNotification };
