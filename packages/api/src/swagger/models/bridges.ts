/** Models of bridges.json (reference bridges.md "Models"); field names are core's snapshot fields. */
import type { BridgeSnapshot, BridgeVideoMode } from '@switchboard/core';
import { listOfAll, type ModelFor } from '../types.js';

export const BridgeModel = {
  id: 'Bridge',
  description: 'The merging of media from one or more channels.',
  properties: {
    id: { type: 'string', description: 'Unique identifier for this bridge', required: true },
    technology: {
      type: 'string',
      description: 'Name of the current bridging technology (simple_bridge, softmix, holding_bridge)',
      required: true,
    },
    bridge_type: {
      type: 'string',
      description: 'Type of bridge technology',
      required: true,
      allowableValues: { valueType: 'LIST', values: ['mixing', 'holding'] },
    },
    bridge_class: {
      type: 'string',
      description: 'Bridging class: app for bridges created through this API, base otherwise',
      required: true,
    },
    creator: { type: 'string', description: 'Entity that created the bridge: App for bridges created through this API', required: true },
    name: { type: 'string', description: 'Name the creator gave the bridge', required: true },
    channels: { type: 'List[string]', description: 'Ids of channels participating in this bridge', required: true },
    video_mode: {
      type: 'string',
      description: 'The video mode the bridge uses',
      required: false,
      allowableValues: listOfAll<BridgeVideoMode>()(['none', 'talker', 'sfu', 'single']),
    },
    video_source_id: {
      type: 'string',
      description: 'The id of the channel that is the source of video in this bridge, if one exists',
      required: false,
    },
    creationtime: { type: 'Date', description: 'Timestamp when bridge was created', required: true },
    bridgevars: { type: 'object', description: 'Bridge variables set with report_events', required: false },
  },
} as const satisfies ModelFor<BridgeSnapshot>;

export const BRIDGE_MODELS = [BridgeModel];
