import type { MediaEngine } from '../media/media-engine.js';
import type { ChannelTechnology } from './channel-technology.js';

/**
 * The technology side of a channel with no signalling at all, only a leg the media engine made: a
 * snoop channel, an external media channel, another node's channel standing in a bridge here. It
 * is "answered" from the start; hanging up releases the leg, once.
 */
export class MediaLegTechnology implements ChannelTechnology {
  readonly protocolId = '';
  readonly mediaLegId: string;
  readonly #release: () => Promise<void>;
  #released = false;

  /** `release` frees the leg and whatever goes with it; the default only destroys the leg. */
  constructor(legId: string, media: MediaEngine, release: () => Promise<void> = () => media.destroyLeg(legId)) {
    this.mediaLegId = legId;
    this.#release = release;
  }

  async answer(): Promise<void> {}
  async indicateRinging(): Promise<void> {}
  async indicateProgress(): Promise<void> {}

  async hangup(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await this.#release();
  }
}
