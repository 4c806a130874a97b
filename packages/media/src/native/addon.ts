/**
 * The media package's native library (native/rtp_sockets.c), compiled at install when a compiler
 * and Node's headers are there; null otherwise, and every user of it has a JavaScript fallback.
 */
import { createRequire } from 'node:module';

/** The socket hub's surface (see the C file's comments for the ring layout). */
export interface NativeHub {
  readonly data: ArrayBuffer;
  readonly meta: Int32Array;
  /** Per ring slot: the kernel's receive time in ms on CLOCK_MONOTONIC, NaN when the socket has no stamps. */
  readonly arrivals: Float64Array;
  open(address: string, port: number, timestamps: boolean): [slot: number, generation: number, port: number];
  send(slot: number, bytes: Uint8Array, offset: number, length: number, address: number, port: number): number;
  close(slot: number): void;
}

export interface NativeAddon {
  Hub: new (onDatagrams: (count: number) => void) => NativeHub;
  layout: { slots: number; slotBytes: number; metaInts: number };
  /** SCHED_RR at `priority` for the thread `tid`: 0, or the errno (EPERM without CAP_SYS_NICE). */
  setRealtimePriority(tid: number, priority: number): number;
}

function loadAddon(): NativeAddon | null {
  try {
    // dist/native/ → native/build/Release/ of this package.
    return createRequire(import.meta.url)('../../native/build/Release/rtp_sockets.node') as NativeAddon;
  } catch {
    return null;
  }
}

export const nativeAddon: NativeAddon | null = loadAddon();
