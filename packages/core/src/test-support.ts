/**
 * Test doubles for core's unit tests: a media engine that records requests and lets a test finish
 * plays by hand, and a channel technology that records what core asked of it.
 */
import type { ChannelTechnology } from './drivers/channel-technology.js';
import type { MediaEngine, MediaNotification, PlayFileRequest } from './media/media-engine.js';

export class RecordingMediaEngine implements MediaEngine {
  readonly plays: { legId: string; request: PlayFileRequest }[] = [];
  readonly stops: string[] = [];
  readonly #listeners = new Set<(n: MediaNotification) => void>();

  async createLeg() {
    return { legId: 'leg-1', localAddress: '127.0.0.1', localPort: 10000 };
  }
  async setLegRemote() {}
  async destroyLeg() {}
  async playFile(legId: string, request: PlayFileRequest) {
    this.plays.push({ legId, request });
  }
  async stopPlayback(_legId: string, playbackId: string) {
    this.stops.push(playbackId);
  }
  async getCounters() {
    return { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0 };
  }
  onNotification(listener: (n: MediaNotification) => void) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Ends the most recent play request with the given reason. */
  finishLast(reason: 'complete' | 'failed' = 'complete'): void {
    const last = this.plays[this.plays.length - 1];
    if (!last) throw new Error('nothing is playing');
    for (const l of this.#listeners) l({ type: 'playbackFinished', legId: last.legId, playbackId: last.request.playbackId, reason });
  }
}

export class RecordingTechnology implements ChannelTechnology {
  readonly protocolId = 'call-id-1';
  readonly mediaLegId: string | undefined = 'leg-1';
  readonly calls: string[] = [];
  async answer() {
    this.calls.push('answer');
  }
  async indicateRinging() {
    this.calls.push('ringing');
  }
  async indicateProgress() {
    this.calls.push('progress');
  }
  async hangup(cause: number) {
    this.calls.push(`hangup:${cause}`);
  }
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
