/** The eleven resources in the order of the resource listing (SPEC §2.1). */
import type { ResourceDecl } from '../http/operation.js';
import { applicationsResource } from './applications.js';
import { channelsResource } from './channels.js';
import { eventsResource } from './events.js';
import { deviceStatesResource } from './deviceStates.js';
import { endpointsResource } from './endpoints.js';
import { mailboxesResource } from './mailboxes.js';
import { bridgesResource } from './bridges.js';
import { recordingsResource } from './recordings.js';
import { playbacksResource } from './playbacks.js';
import { soundsResource } from './sounds.js';
import { systemResource } from './system.js';

export const RESOURCES: readonly ResourceDecl[] = [
  systemResource,
  endpointsResource,
  channelsResource,
  bridgesResource,
  recordingsResource,
  soundsResource,
  playbacksResource,
  deviceStatesResource,
  mailboxesResource,
  eventsResource,
  applicationsResource,
];
