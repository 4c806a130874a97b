/**
 * The bridges Dial() connects its parties in. They are the system's own bridges (as Asterisk's
 * basic bridge): the control API lists them and applications watching a party see their events,
 * but no application controls them. The server implements this with core's bridge registry.
 */
import type { BridgeSnapshot, Channel } from '@switchboard/core';

export interface DialBridgeEntry {
  /**
   * The parties hear each other before anyone answered (early media): an inbound caller that
   * still rings stays unanswered, and nobody's connected line changes.
   */
  earlyMedia?: boolean;
}

export interface DialBridges {
  /** A new two-party mixing bridge; resolves with its id. */
  create(): Promise<string>;
  /** The channels enter, in order; a channel in another bridge moves out of it. */
  add(bridgeId: string, channels: readonly Channel[], entry?: DialBridgeEntry): Promise<void>;
  /** The channels leave (those not in the bridge, or a bridge already gone, are ignored). */
  remove(bridgeId: string, channels: readonly Channel[]): Promise<void>;
  /** Remaining channels leave and the bridge goes; a bridge already gone is ignored. */
  destroy(bridgeId: string): Promise<void>;
  /** What the bridge looks like now, for events that name it. */
  snapshot(bridgeId: string): BridgeSnapshot | undefined;
}
