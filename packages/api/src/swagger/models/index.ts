/** Every model we publish, by id: what outgoing events are checked against (SPEC §6.1). */
import type { ModelDecl } from '../types.js';
import { APPLICATION_MODELS } from './applications.js';
import { CHANNEL_MODELS } from './channels.js';
import { EVENTS_RESOURCE_MODELS } from './events.js';
import { PLAYBACK_MODELS } from './playbacks.js';
import { SOUND_MODELS } from './sounds.js';
import { SYSTEM_MODELS } from './system.js';
import { DEVICE_STATE_MODELS } from './deviceStates.js';
import { ENDPOINT_MODELS } from './endpoints.js';
import { MAILBOX_MODELS } from './mailboxes.js';
import { BRIDGE_MODELS } from './bridges.js';
import { RECORDING_MODELS } from './recordings.js';

export const ALL_MODELS: ReadonlyMap<string, ModelDecl> = new Map(
  [
    ...SYSTEM_MODELS,
    ...CHANNEL_MODELS,
    ...SOUND_MODELS,
    ...PLAYBACK_MODELS,
    ...EVENTS_RESOURCE_MODELS,
    ...APPLICATION_MODELS,
    ...DEVICE_STATE_MODELS,
    ...MAILBOX_MODELS,
    ...ENDPOINT_MODELS,
    ...BRIDGE_MODELS,
    ...RECORDING_MODELS,
  ].map((model) => [model.id, model]),
);
