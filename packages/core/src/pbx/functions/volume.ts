/**
 * VOLUME(TX|RX[,options]): the gain of a channel's audio, as the original's func_volume sets it.
 * `TX` is what the channel transmits to its phone (what the caller hears), `RX` what it receives
 * from the phone (what everyone else hears of it). The value follows the original's rule: a
 * positive number multiplies the samples, a negative one divides them (-2 halves), 0 leaves them
 * as they are; from -16 to 16. The media engine applies it to the channel's leg (setLegGain), so
 * it holds in the dialplan, in a Dial() bridge and in any bridge the channel joins.
 *
 * A channel without media yet (a callee in Dial's pre-dial handler) gets the gain once its call is
 * up. The `p` option of the original (changing the volume with * and # during the call) is not
 * built: it is reported and ignored.
 */
import type { Channel } from '../../channels/channel.js';
import type { MediaEngine } from '../../media/media-engine.js';
import type { Logger } from '../../util/logger.js';
import { volumeFactor } from '../apps/mixmonitor/mixmonitor-options.js';
import type { DialplanFunction } from '../pbx-services.js';

interface Volume {
  tx: number;
  rx: number;
}

const LIMIT = 16;

export class ChannelVolumes {
  readonly #volumes = new WeakMap<Channel, Volume>();
  readonly #media: Pick<MediaEngine, 'setLegGain'>;
  readonly #log: Logger;

  constructor(media: Pick<MediaEngine, 'setLegGain'>, log: Logger) {
    this.#media = media;
    this.#log = log;
  }

  readonly function: DialplanFunction = {
    read: (ctx, args) => {
      const direction = this.#direction(args);
      if (direction === undefined) {
        ctx.log.warn({ args }, 'VOLUME needs TX or RX');
        return '';
      }
      return String(this.#volumes.get(ctx.channel)?.[direction] ?? 0);
    },
    write: (ctx, args, value) => {
      const direction = this.#direction(args);
      const options = args.split(',')[1]?.trim() ?? '';
      if (direction === undefined) {
        ctx.log.warn({ args }, 'VOLUME needs TX or RX');
        return;
      }
      if (options.includes('p'))
        ctx.log.warn({ channel: ctx.channel.name }, 'VOLUME option p (volume keys during the call) is not built; ignored');
      const adjustment = Number(value.trim() === '' ? '0' : value);
      if (!Number.isFinite(adjustment) || Math.abs(adjustment) > LIMIT) {
        ctx.log.warn({ channel: ctx.channel.name, value }, `VOLUME takes a number from -${LIMIT} to ${LIMIT}; unchanged`);
        return;
      }
      const volume = this.#volumes.get(ctx.channel) ?? { tx: 0, rx: 0 };
      volume[direction] = adjustment;
      this.#volumes.set(ctx.channel, volume);
      this.apply(ctx.channel);
    },
  };

  /** Sends the channel's gains to its media leg, if it has a volume set and a leg. */
  apply(channel: Channel): void {
    const volume = this.#volumes.get(channel);
    const legId = channel.tech.mediaLegId;
    if (volume === undefined || legId === undefined || channel.isDestroyed) return;
    const gain = { inbound: factor(volume.rx), outbound: factor(volume.tx) };
    this.#media
      .setLegGain(legId, gain)
      .catch((err: unknown) => this.#log.warn({ err, channel: channel.name }, 'VOLUME could not be applied'));
  }

  #direction(args: string): keyof Volume | undefined {
    const name = (args.split(',')[0] ?? '').trim().toLowerCase();
    return name === 'tx' || name === 'rx' ? name : undefined;
  }
}

/** The gain an adjustment stands for, kept within what the engine takes (1/16 to 16). */
function factor(adjustment: number): number {
  if (adjustment > -1 && adjustment < 0) return 1;
  return Math.min(LIMIT, Math.max(1 / LIMIT, volumeFactor(adjustment)));
}
