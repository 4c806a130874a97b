/**
 * A bridge's video: connects its members' video (local legs' video sockets, or links to other
 * workers) to its VideoRouter and carries the router's decisions out. Packets are routed as they
 * arrive, not on the media tick; the tick only feeds audio levels to talker-follows mode.
 * A holding bridge carries no video (mode `none`); a mixing bridge starts in `talker`.
 * While two legs are relayed (bridge.ts) their audio is not decoded, so their levels read as
 * silence and the talker does not move; with two members each sees the other anyway.
 */
import { randomBytes } from 'node:crypto';
import type { BridgeKind, BridgeVideoRequest } from '@switchboard/media-control';
import type { BridgeMember } from './members.js';
import { VideoRouter } from './video-router.js';

/** RMS of a 20 ms frame of 16-bit PCM (0 for silence or nothing received). */
export function frameRms(frame: Int16Array | null): number {
  if (frame === null || frame.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < frame.length; i += 1) sum += frame[i] * frame[i];
  return Math.sqrt(sum / frame.length);
}

export class BridgeVideo {
  readonly router: VideoRouter;
  readonly #kind: BridgeKind;
  readonly #members = new Map<string, BridgeMember>();
  /** The datagram being routed, for the router's `forward` calls. */
  #routing: Uint8Array | null = null;

  constructor(kind: BridgeKind, now: () => number) {
    this.#kind = kind;
    this.router = new VideoRouter(
      {
        forward: (to, header) => {
          if (this.#routing !== null) this.#members.get(to)?.sendVideo(this.#routing, header);
        },
        requestKeyframe: (source) => this.#members.get(source)?.requestKeyframe(),
        requestRetransmission: (source, sequences) => this.#members.get(source)?.requestRetransmission(sequences),
      },
      { now, randomSsrc: () => randomBytes(4).readUInt32BE(0) },
    );
    this.router.setMode(kind === 'holding' ? 'none' : 'talker');
  }

  /** Sets the mode; a holding bridge stays without video whatever is asked. */
  setMode(request: BridgeVideoRequest): void {
    this.router.setMode(this.#kind === 'holding' ? 'none' : request.mode, request.sourceLegId);
  }

  add(member: BridgeMember): void {
    const id = member.legId;
    this.#members.set(id, member);
    member.attachVideo({
      packet: (datagram, info) => {
        this.#routing = datagram;
        try {
          this.router.route(id, info);
        } finally {
          this.#routing = null;
        }
      },
      keyframeRequest: (mediaSsrc) => this.router.keyframeRequested(id, mediaSsrc),
      retransmissionRequest: (mediaSsrc, sequences) => this.router.retransmissionRequested(id, mediaSsrc, sequences),
      formatChanged: () => this.router.setMember(id, member.videoFormat()),
    });
    this.router.setMember(id, member.videoFormat());
  }

  /** A local member's negotiated video changed (setLegRemote). */
  refresh(legId: string): void {
    const member = this.#members.get(legId);
    if (member !== undefined) this.router.setMember(legId, member.videoFormat());
  }

  remove(legId: string): void {
    const member = this.#members.get(legId);
    if (member === undefined) return;
    this.#members.delete(legId);
    member.attachVideo(null);
    this.router.removeMember(legId);
  }

  /** Once per tick with the members and their audio (null: silent or muted), for talker-follows mode. */
  levels(memberships: ReadonlyArray<{ member: BridgeMember }>, heard: ReadonlyArray<Int16Array | null>): void {
    if (this.router.mode !== 'talker' || !this.router.carriesVideo) return;
    for (let i = 0; i < memberships.length; i += 1) this.router.observeLevel(memberships[i].member.legId, frameRms(heard[i]));
    this.router.talkerTick();
  }

  close(): void {
    for (const id of [...this.#members.keys()]) this.remove(id);
  }
}
