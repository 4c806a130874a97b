/** The eleven resources in the order of the resource listing (SPEC §2.1). */
import type { ResourceDecl } from '../http/operation.js';
import { applicationsResource } from './applications.js';
import { channelsResource } from './channels.js';
import { eventsResource } from './events.js';
import { bridgesResource, deviceStatesResource, endpointsResource, mailboxesResource, recordingsResource } from './pending.js';
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
