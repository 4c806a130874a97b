/**
 * A bridge `type`: comma-separated attributes (SPEC §2.3). The reference ignores words it does not
 * know; SPEC §4.0 rule 5 says a disallowed value is rejected, so we refuse them (400).
 */
import { invalidArgument } from '../errors.js';
import type { BridgeVideoMode } from '../model/snapshots.js';

export const BRIDGE_TYPE_ATTRIBUTES = ['mixing', 'holding', 'dtmf_events', 'proxy_media', 'video_sfu', 'video_single'] as const;
export type BridgeTypeAttribute = (typeof BRIDGE_TYPE_ATTRIBUTES)[number];

export interface BridgeType {
  kind: 'mixing' | 'holding';
  attributes: ReadonlySet<BridgeTypeAttribute>;
  /** The video mode the bridge starts in. */
  videoMode: BridgeVideoMode;
}

export function parseBridgeType(text: string | undefined): BridgeType {
  const words = (text ?? '')
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w !== '');
  const attributes = new Set<BridgeTypeAttribute>();
  for (const word of words) {
    if (!(BRIDGE_TYPE_ATTRIBUTES as readonly string[]).includes(word)) {
      throw invalidArgument(`Unknown bridge type attribute '${word}'; allowed: ${BRIDGE_TYPE_ATTRIBUTES.join(', ')}`);
    }
    attributes.add(word as BridgeTypeAttribute);
  }
  if (attributes.has('holding') && attributes.has('mixing')) throw invalidArgument('A bridge cannot be both holding and mixing');
  if (attributes.has('video_sfu') && attributes.has('video_single')) throw invalidArgument('Choose one of video_sfu and video_single');
  const kind = attributes.has('holding') ? 'holding' : 'mixing';
  // A holding bridge carries no video between participants; a mixing one follows the talker by default.
  const videoMode: BridgeVideoMode =
    kind === 'holding' ? 'none' : attributes.has('video_sfu') ? 'sfu' : attributes.has('video_single') ? 'single' : 'talker';
  return { kind, attributes, videoMode };
}
