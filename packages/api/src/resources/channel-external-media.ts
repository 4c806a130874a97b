/** externalMedia (reference channels.md): a channel exchanging RTP with an external host, placed in an application. */
import { defineOperation, ok } from '../http/operation.js';
import { channelIdParam, variableSettings, variablesBodyParam } from './channel-params.js';

export const externalMedia = defineOperation({
  httpMethod: 'POST',
  nickname: 'externalMedia',
  summary: 'Start an External Media session.',
  notes:
    'Create a channel to an external media source/sink over RTP/UDP. The local address and port to send to are in ' +
    'the channelvars UNICASTRTP_LOCAL_ADDRESS and UNICASTRTP_LOCAL_PORT. AudioSocket and WebSocket are not implemented (501).',
  responseClass: 'Channel',
  since: ['16.6.0', '17.1.0'],
  parameters: [
    { ...channelIdParam, paramType: 'query', required: false, description: 'The unique id to assign the channel on creation' },
    {
      name: 'app',
      description: 'The application that is subscribed to the created channel',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    variablesBodyParam,
    {
      name: 'external_host',
      description: 'Hostname/ip:port of external host',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    {
      name: 'encapsulation',
      description: 'Payload encapsulation protocol; only rtp is implemented',
      paramType: 'query',
      dataType: 'string',
      required: false,
      defaultValue: 'rtp',
      allowableValues: { valueType: 'LIST', values: ['rtp', 'audiosocket', 'none'] },
    },
    {
      name: 'transport',
      description: 'Transport protocol; only udp is implemented',
      paramType: 'query',
      dataType: 'string',
      required: false,
      defaultValue: 'udp',
      allowableValues: { valueType: 'LIST', values: ['udp', 'tcp', 'websocket'] },
    },
    {
      name: 'connection_type',
      description: 'Connection type (client/server); server only with websocket',
      paramType: 'query',
      dataType: 'string',
      required: false,
      defaultValue: 'client',
      allowableValues: { valueType: 'LIST', values: ['client', 'server'] },
    },
    {
      name: 'format',
      description: 'Format to encode audio in (ulaw, alaw, g722, opus, slin16)',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    {
      name: 'direction',
      description: 'External media direction',
      paramType: 'query',
      dataType: 'string',
      required: false,
      defaultValue: 'both',
      allowableValues: { valueType: 'LIST', values: ['both'] },
    },
    {
      name: 'data',
      description: 'An arbitrary data field (AudioSocket session id)',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    { name: 'transport_data', description: 'Transport-specific data', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid parameters' },
    { code: 409, reason: 'Channel with given unique ID already exists' },
    { code: 501, reason: 'The encapsulation and transport are not implemented' },
  ],
  handler: async ({ core, params }) => {
    const channel = await core.externalMedia.create({
      app: params.app,
      channelId: params.channelId,
      externalHost: params.external_host,
      encapsulation: params.encapsulation,
      transport: params.transport,
      connectionType: params.connection_type,
      format: params.format,
      direction: params.direction,
      variables: variableSettings(params.variables),
    });
    return ok(channel.snapshot());
  },
});
