/**
 * What the console commands read and act on. The composition root builds one from the running
 * parts; tests build one from the same real parts.
 */
import type { ContactRecord, StoredCdr, SwitchboardCore } from '@switchboard/core';

export interface SipConsoleView {
  listening(): { transport: string; protocol: string; address: string; port: number }[];
  registrations(): { name: string; serverUri: string; clientUri: string; outboundAuth?: string; state: string }[];
  contacts(): Promise<ContactRecord[]>;
}

export interface SipTraceControl {
  /** `host` limits the trace to messages from or to that address. */
  enable(host?: string): void;
  disable(): void;
  describe(): string;
}

export interface VerbosityControl {
  get level(): number;
  set level(value: number);
}

export interface ConsoleServices {
  core: SwitchboardCore;
  sip: SipConsoleView;
  sipTrace: SipTraceControl;
  verbosity: VerbosityControl;
  recentCdrs(limit: number): Promise<StoredCdr[]>;
  /** Calls (inbound channels) since start. */
  callsProcessed(): number;
  /** Directories shown by `core show settings`. */
  paths: { conf: string; data: string; log: string; controlSocket: string };
  /** `gracefully`: refuse new calls, stop once no channel is left; `now`: at once (live calls are hung up). */
  stop(mode: 'now' | 'gracefully'): void;
  /** Re-reads logger.conf and applies it to the console and the log channels. */
  reloadLogger(): Promise<void>;
}
