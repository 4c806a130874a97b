/**
 * What a media worker's death means for calls: every channel whose leg lived on that worker has
 * lost its audio for good and is hung up (cause 38, network out of order), with the usual events;
 * bridges homed there are rebuilt for the participants whose legs live elsewhere. Nothing else is
 * touched (issue: a worker that crashes affects only its own calls).
 */
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import type { Logger } from '../util/logger.js';
import type { MediaEngine, MediaNotification } from './media-engine.js';

export const CAUSE_NETWORK_OUT_OF_ORDER = 38;

export function watchWorkerFailures(deps: {
  media: MediaEngine;
  channels: ChannelRegistry;
  bridges: BridgeRegistry;
  log: Logger;
}): () => void {
  return deps.media.onNotification((notification: MediaNotification) => {
    if (notification.type !== 'workerDied') return;
    deps.log.error(
      { worker: notification.workerIndex, legs: notification.legIds.length, bridges: notification.bridgeIds.length },
      'media worker died: hanging up its calls',
    );
    const hangups: Promise<void>[] = [];
    for (const legId of notification.legIds) {
      const channel = deps.channels.findByMediaLeg(legId);
      if (channel) hangups.push(channel.hangup(CAUSE_NETWORK_OUT_OF_ORDER));
    }
    // Rebuild only after the lost channels have left, so they are not joined again.
    void Promise.allSettled(hangups).then(async () => {
      for (const bridgeId of notification.bridgeIds) {
        await deps.bridges
          .rebuildMedia(bridgeId)
          .catch((err: unknown) => deps.log.error({ err, bridge: bridgeId }, 'bridge rebuild failed'));
      }
    });
  });
}
