/** The parts of npm `asterisk-manager` (untyped CommonJS) the end-to-end tests use. */
declare module 'asterisk-manager' {
  import type { EventEmitter } from 'node:events';

  /** Keys are lower-cased header names; repeated headers become arrays. */
  export type AmiMessage = Record<string, string | string[] | undefined>;

  export interface AsteriskManager extends EventEmitter {
    action(action: Record<string, string | number | boolean>, callback?: (err: AmiMessage | undefined, res: AmiMessage) => void): string;
    disconnect(): void;
    isConnected(): boolean;
  }

  function Manager(port: number, host: string, username: string, password: string, events: boolean): AsteriskManager;
  export default Manager;
}
