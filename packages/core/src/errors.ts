/**
 * Expected failures of the object model. Each carries a `code` that the api package maps to an
 * HTTP status in one place (packages/api/src/http/error-status.ts). A plain `Error` means a bug.
 */
export type CoreErrorCode =
  | 'invalid_argument' // 400: malformed or missing input
  | 'not_found' // 404: the addressed object does not exist
  | 'conflict' // 409: the object exists but is in the wrong place (not in an application, id taken, queued)
  | 'precondition_failed' // 412: the channel has not answered yet
  | 'unprocessable' // 422: a related object is missing or unusable (channel not in app, bad format)
  | 'restart_queued' // 409 (SPEC §3 rule 1): restart of a queued playback; the reference does nothing and answers 204
  | 'recording_exists' // 422 (SPEC §4.4 rule 6): a recording of that name exists; the reference answers 409
  | 'forbidden' // 403: backend does not allow the operation
  | 'not_implemented' // 501
  | 'unavailable'; // 503: a subsystem is not running

export class CoreError extends Error {
  readonly code: CoreErrorCode;
  constructor(code: CoreErrorCode, message: string) {
    super(message);
    this.name = 'CoreError';
    this.code = code;
  }
}

export const invalidArgument = (message: string) => new CoreError('invalid_argument', message);
export const notFound = (message: string) => new CoreError('not_found', message);
export const conflict = (message: string) => new CoreError('conflict', message);
export const preconditionFailed = (message: string) => new CoreError('precondition_failed', message);
export const unprocessable = (message: string) => new CoreError('unprocessable', message);
export const recordingExists = () => new CoreError('recording_exists', 'A recording with the same name already exists on the system');
export const forbidden = (message: string) => new CoreError('forbidden', message);
export const notImplemented = (message: string) => new CoreError('not_implemented', message);

/** A configuration file that cannot be used: startup stops with file, line and reason. */
export class ConfigError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  constructor(file: string, line: number | undefined, reason: string) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${line}: ${reason}`);
    this.name = 'ConfigError';
    this.file = file;
    this.line = line;
  }
}
