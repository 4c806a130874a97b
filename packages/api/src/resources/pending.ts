/**
 * Resources whose operations arrive with later work. They are listed and served now (SPEC §2.1 names
 * all eleven, and swagger clients read every listed document); their models join them with the
 * first operation or event that shows them.
 */
import type { ResourceDecl } from '../http/operation.js';

const pending = (name: string, description: string, since: string): ResourceDecl => ({
  name,
  description,
  swaggerVersion: '1.1',
  since: [since],
  apis: [],
  models: [],
});

export const endpointsResource = pending('endpoints', 'Endpoint resources', '12.0.0');
export const bridgesResource = pending('bridges', 'Bridge resources', '12.0.0');
export const recordingsResource = pending('recordings', 'Recording resources', '12.0.0');
export const deviceStatesResource = pending('deviceStates', 'Device state resources', '12.5.0');
export const mailboxesResource = pending('mailboxes', 'Mailboxes resources', '12.1.0');
