/**
 * What a media failure means for calls. A leg that can carry no audio any more (socket failure, a
 * DTLS-SRTP handshake that failed: `legFailed` with `fatal`) ends its call with cause 38.
 * A media worker's death: every channel whose leg lived on that worker has
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
    if (notification.type === 'legFailed' && notification.fatal === true) {
      // A leg without a socket or without DTLS-SRTP keys carries nothing: the call is not left up in silence.
      const channel = deps.channels.findByMediaLeg(notification.legId);
      if (channel === undefined) return;
      deps.log.warn({ channel: channel.name, problem: notification.error }, 'media leg failed: hanging up its call');
      void channel.hangup(CAUSE_NETWORK_OUT_OF_ORDER).catch((err: unknown) => deps.log.error({ err }, 'hangup after a failed leg failed'));
      return;
    }
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
