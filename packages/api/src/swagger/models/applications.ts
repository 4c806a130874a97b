/** Models of applications.json. */
import type { ApplicationSnapshot } from '@switchboard/core';
import type { ModelFor } from '../types.js';

export const ApplicationModel = {
  id: 'Application',
  description: 'Details of an application',
  properties: {
    name: { type: 'string', description: 'Name of this application', required: true },
    channel_ids: { type: 'List[string]', description: 'Ids of the channels subscribed to', required: true },
    bridge_ids: { type: 'List[string]', description: 'Ids of the bridges subscribed to', required: true },
    endpoint_ids: { type: 'List[string]', description: '{tech}/{resource} of the endpoints subscribed to', required: true },
    device_names: { type: 'List[string]', description: 'Names of the devices subscribed to', required: true },
    events_allowed: { type: 'List[object]', description: 'Event types sent to the application ({"type": name} objects)', required: true },
    events_disallowed: {
      type: 'List[object]',
      description: 'Event types not sent to the application ({"type": name} objects)',
      required: true,
    },
  },
} as const satisfies ModelFor<ApplicationSnapshot>;

export const APPLICATION_MODELS = [ApplicationModel];
