/** The parts of npm `ari-client` (untyped CommonJS) the end-to-end tests use. */
declare module 'ari-client' {
  import type { EventEmitter } from 'node:events';

  export interface AriEvent {
    type: string;
    timestamp: string;
    application: string;
    asterisk_id: string;
    [field: string]: unknown;
  }

  export interface AriChannel {
    id: string;
    name: string;
    state: string;
    answer(): Promise<void>;
    hangup(params?: Record<string, unknown>): Promise<void>;
    play(params: Record<string, unknown>, playback?: AriPlayback): Promise<AriPlayback>;
  }

  export interface AriPlayback {
    id: string;
    state: string;
    media_uri: string;
  }

  export type AriOperation = (params?: Record<string, unknown>) => Promise<unknown>;

  export interface AriClient extends EventEmitter {
    system: Record<string, AriOperation>;
    channels: Record<string, AriOperation>;
    applications: Record<string, AriOperation>;
    playbacks: Record<string, AriOperation>;
    sounds: Record<string, AriOperation>;
    [resource: string]: unknown;
    Playback(): AriPlayback;
    start(apps: string | string[], subscribeAll?: boolean): Promise<void>;
    stop(): void;
  }

  export function connect(url: string, user: string, password: string): Promise<AriClient>;
  const ari: { connect: typeof connect };
  export default ari;
}
