/** externalMedia (reference channels.md): a channel exchanging RTP with an external host, placed in an application. */
import { defineOperation, ok } from '../http/operation.js';
import { channelIdParam, variableSettings, variablesBodyParam } from './channel-params.js';

export const externalMedia = defineOperation({
  httpMethod: 'POST',
  nickname: 'externalMedia',
  summary: 'Start an External Media session.',
  notes:
    'Create a channel to an external media source/sink. rtp/udp: the local address and port to send to are in the ' +
    'channel variables UNICASTRTP_LOCAL_ADDRESS and UNICASTRTP_LOCAL_PORT. websocket (encapsulation none): binary ' +
    'frames of audio plus the WebSocket media text messages (MEDIA_START, MEDIA_XOFF/XON, ...), plain text or JSON ' +
    '(chan_websocket.conf control_message_format, or transport_data=f(json)); connection_type client ' +
    'connects to the ws:// or wss:// URL in external_host, server waits for the application to connect to ' +
    '/media/<MEDIA_WEBSOCKET_CONNECTION_ID>. audiosocket/tcp: connects to external_host; data is the stream UUID. ' +
    'WebSocket and AudioSocket carry ulaw (WebSocket only), slin or slin16, paced at 20 ms.',
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
      description: 'host:port of the external host (rtp, audiosocket), or the ws:// or wss:// URL to connect to (websocket client)',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    {
      name: 'encapsulation',
      description: 'Payload encapsulation protocol: rtp (udp), audiosocket (tcp), none (websocket)',
      paramType: 'query',
      dataType: 'string',
      required: false,
      defaultValue: 'rtp',
      allowableValues: { valueType: 'LIST', values: ['rtp', 'audiosocket', 'none'] },
    },
    {
      name: 'transport',
      description: 'Transport protocol: udp (rtp), tcp (audiosocket), websocket (encapsulation none)',
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
      description:
        'Format to encode audio in: ulaw, alaw, g722, opus, slin16 over rtp; ulaw, slin, slin16 over websocket; slin, slin16 over audiosocket',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    {
      name: 'direction',
      description: 'External media direction (websocket: in = audio to the application only, out = from it only)',
      paramType: 'query',
      dataType: 'string',
      required: false,
      defaultValue: 'both',
      allowableValues: { valueType: 'LIST', values: ['both', 'in', 'out'] },
    },
    {
      name: 'data',
      description: 'An arbitrary data field (AudioSocket session id)',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
    {
      name: 'transport_data',
      description:
        'Transport-specific data. websocket: dial-string options, f(json|plain-text) the control message format, ' +
        'd(both|in|out) the media direction, v(name=value,...) parameters added to the URI we connect to',
      paramType: 'query',
      dataType: 'string',
      required: false,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid parameters' },
    { code: 409, reason: 'Channel with given unique ID already exists' },
    { code: 501, reason: 'The encapsulation and transport are not available on this server' },
    { code: 503, reason: 'The external host could not be connected to' },
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
      data: params.data,
      transportData: params.transport_data,
      variables: variableSettings(params.variables),
    });
    return ok(channel.snapshot());
  },
});
