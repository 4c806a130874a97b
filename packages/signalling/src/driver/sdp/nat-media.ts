/**
 * The address a call's SDP names, per pjsip.conf: the endpoint's `media_address` first, else the
 * transport's `external_media_address` unless the peer is inside `local_net`, else (left to the
 * call) the bound or local address. The calls read it from the transport configuration they are
 * given, so this hands each call a copy with the right external address. With
 * `bind_rtp_to_media_address` the call's RTP socket is also bound to `media_address`.
 *
 * Inbound calls ask twice: before the endpoint is known (the transport's rules for the peer), and
 * once it is identified, when the media leg is made, so that our 200 OK and every later offer
 * or answer name the endpoint's `media_address` too.
 */
import type { SipEndpointConfig, SipTransportConfig } from '@switchboard/core';
import { LocalNetworks } from '../../transport/local-net.js';

export function mediaTransportConfig(
  config: SipTransportConfig,
  peer: string | undefined,
  endpoint: SipEndpointConfig | undefined,
): SipTransportConfig {
  const mediaAddress = endpoint?.mediaAddress;
  if (mediaAddress !== undefined) {
    return {
      ...config,
      externalMediaAddress: mediaAddress,
      ...(endpoint?.bindRtpToMediaAddress === true ? { bindAddress: mediaAddress } : {}),
    };
  }
  if (peer === undefined || config.externalMediaAddress === undefined) return config;
  const external = LocalNetworks.of(config.localNets).externalFor(config.externalMediaAddress, peer.replace(/^::ffff:/i, ''));
  if (external !== undefined) return config;
  const { externalMediaAddress: _local, ...rest } = config;
  return rest;
}
