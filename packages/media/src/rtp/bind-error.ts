import { MediaError } from '../errors.js';

/** A failed bind of an RTP socket as the media error the engine maps (`port_in_use` lets it try the next port). */
export function bindError(code: string | undefined, message: string, bindAddress: string, port: number): MediaError {
  return code === 'EADDRINUSE'
    ? new MediaError('port_in_use', `RTP port ${port} is in use`)
    : new MediaError('bind_failed', `cannot bind RTP socket to ${bindAddress}:${port}: ${message}`);
}
