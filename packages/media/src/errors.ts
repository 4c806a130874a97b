/**
 * Expected failures of the media engine, as one catalogue of codes. Errors cross the worker
 * boundary as `{ code, message }` (structured clone drops class identity) and are rebuilt into
 * these classes on the main thread by `mediaErrorFromWire`. A plain `Error` means a bug.
 */
export type MediaErrorCode =
  | 'invalid_argument' // a request field is malformed (bad address, port, codec, offset)
  | 'leg_not_found' // no leg with that id (never created, destroyed, or lost with its worker)
  | 'bridge_not_found' // no media bridge with that id (never created, destroyed, or lost with its worker)
  | 'recording_not_found' // no live recording with that id (never started, or already finished)
  | 'port_in_use' // the chosen RTP port is bound by someone else (the engine tries the next one)
  | 'ports_exhausted' // every even port of the configured range is taken
  | 'bind_failed' // the RTP socket could not be bound for another reason (address not local, …)
  | 'worker_died' // the worker thread exited unexpectedly while the request was pending
  | 'worker_closed' // the worker was shut down while the request was pending
  | 'not_running' // the engine is not started, or already closed
  | 'internal'; // a bug inside the worker; the message says what failed

export class MediaError extends Error {
  readonly code: MediaErrorCode;
  constructor(code: MediaErrorCode, message: string) {
    super(message);
    this.name = 'MediaError';
    this.code = code;
  }
}

export class InvalidArgumentError extends MediaError {
  constructor(message: string) {
    super('invalid_argument', message);
    this.name = 'InvalidArgumentError';
  }
}

export class LegNotFoundError extends MediaError {
  constructor(message: string) {
    super('leg_not_found', message);
    this.name = 'LegNotFoundError';
  }
}

export const legNotFound = (legId: string): LegNotFoundError => new LegNotFoundError(`no media leg ${legId}`);

export const bridgeNotFound = (bridgeId: string): MediaError => new MediaError('bridge_not_found', `no media bridge ${bridgeId}`);

export const recordingNotFound = (recordingId: string): MediaError =>
  new MediaError('recording_not_found', `no live recording ${recordingId}`);

export class PortsExhaustedError extends MediaError {
  constructor(message: string) {
    super('ports_exhausted', message);
    this.name = 'PortsExhaustedError';
  }
}

export class WorkerDiedError extends MediaError {
  constructor(message: string) {
    super('worker_died', message);
    this.name = 'WorkerDiedError';
  }
}

export class WorkerClosedError extends MediaError {
  constructor(message: string) {
    super('worker_closed', message);
    this.name = 'WorkerClosedError';
  }
}

export class EngineNotRunningError extends MediaError {
  constructor(message: string) {
    super('not_running', message);
    this.name = 'EngineNotRunningError';
  }
}

/** How an error travels in a worker reply. */
export interface WireError {
  code: MediaErrorCode;
  message: string;
}

export function mediaErrorToWire(error: unknown): WireError {
  if (error instanceof MediaError) return { code: error.code, message: error.message };
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { code: 'internal', message };
}

export function mediaErrorFromWire(wire: WireError): MediaError {
  switch (wire.code) {
    case 'invalid_argument':
      return new InvalidArgumentError(wire.message);
    case 'leg_not_found':
      return new LegNotFoundError(wire.message);
    case 'ports_exhausted':
      return new PortsExhaustedError(wire.message);
    case 'worker_died':
      return new WorkerDiedError(wire.message);
    case 'worker_closed':
      return new WorkerClosedError(wire.message);
    case 'not_running':
      return new EngineNotRunningError(wire.message);
    default:
      return new MediaError(wire.code, wire.message);
  }
}
