import type { ChannelTechnology } from '../drivers/channel-technology.js';
import type { MediaEngine } from '../media/media-engine.js';

/**
 * The technology side of a snoop channel: no signalling at all, only the snoop leg the media
 * engine made. It is "answered" from the start; hanging up frees the leg.
 */
export class SnoopTechnology implements ChannelTechnology {
  readonly protocolId = '';
  readonly mediaLegId: string;
  readonly #media: MediaEngine;
  #released = false;

  constructor(legId: string, media: MediaEngine) {
    this.mediaLegId = legId;
    this.#media = media;
  }

  async answer(): Promise<void> {}
  async indicateRinging(): Promise<void> {}
  async indicateProgress(): Promise<void> {}

  async hangup(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await this.#media.destroyLeg(this.mediaLegId);
  }
}
