/** Models of channels.json (reference channels.md "Models"); field names are core's snapshot fields. */
import { CHANNEL_STATES, type CallerId, type ChannelSnapshot, type DialplanLocation, type RtpStatistics } from '@switchboard/core';
import type { ModelFor } from '../types.js';

export const CallerIdModel = {
  id: 'CallerID',
  description: 'Caller identification',
  properties: {
    name: { type: 'string', description: 'Display name (may be empty)', required: true },
    number: { type: 'string', description: 'Number (may be empty)', required: true },
  },
} as const satisfies ModelFor<CallerId>;

export const DialplanCepModel = {
  id: 'DialplanCEP',
  description: 'Dialplan location (context/extension/priority)',
  properties: {
    context: { type: 'string', description: 'Context in the dialplan', required: true },
    exten: { type: 'string', description: 'Extension in the dialplan', required: true },
    priority: { type: 'long', description: 'Priority in the dialplan', required: true },
    app_name: { type: 'string', description: 'Name of the current dialplan application', required: true },
    app_data: { type: 'string', description: 'Parameter of the current dialplan application', required: true },
  },
} as const satisfies ModelFor<DialplanLocation>;

export const ChannelModel = {
  id: 'Channel',
  description: 'A specific communication connection between the server and an endpoint.',
  properties: {
    id: { type: 'string', description: 'Unique identifier of the channel', required: true },
    protocol_id: { type: 'string', description: 'Protocol id of the call (the SIP Call-ID); empty when there is none', required: true },
    name: { type: 'string', description: 'Name of the channel (e.g. SIP/alice-00000001)', required: true },
    state: {
      type: 'string',
      description: 'Channel state',
      required: true,
      allowableValues: { valueType: 'LIST', values: CHANNEL_STATES },
    },
    caller: { type: 'CallerID', description: 'Caller identification', required: true },
    connected: { type: 'CallerID', description: 'Connected line identification', required: true },
    accountcode: { type: 'string', description: 'Account code (may be empty)', required: true },
    dialplan: { type: 'DialplanCEP', description: 'Current location in the dialplan', required: true },
    creationtime: { type: 'Date', description: 'Timestamp when the channel was created', required: true },
    language: { type: 'string', description: 'The default spoken language', required: true },
    channelvars: {
      type: 'object',
      description: 'Channel variables named in the channelvars option of the configuration',
      required: false,
    },
    caller_rdnis: { type: 'string', description: 'The caller ID RDNIS; present only when set', required: false },
    tenantid: { type: 'string', description: 'The tenant identifier; present only when set', required: false },
  },
} as const satisfies ModelFor<ChannelSnapshot>;

const count = (description: string) => ({ type: 'int', description, required: true }) as const;
const measure = (description: string) => ({ type: 'double', description, required: false }) as const;

export const RtpStatModel = {
  id: 'RTPstat',
  description: 'A statistics of a RTP.',
  properties: {
    txcount: count('Number of packets transmitted'),
    rxcount: count('Number of packets received'),
    txjitter: measure('Jitter on transmitted packets'),
    rxjitter: measure('Jitter on received packets'),
    remote_maxjitter: measure('Maximum jitter on remote side'),
    remote_minjitter: measure('Minimum jitter on remote side'),
    remote_normdevjitter: measure('Average jitter on remote side'),
    remote_stdevjitter: measure('Standard deviation jitter on remote side'),
    local_maxjitter: measure('Maximum jitter on local side'),
    local_minjitter: measure('Minimum jitter on local side'),
    local_normdevjitter: measure('Average jitter on local side'),
    local_stdevjitter: measure('Standard deviation jitter on local side'),
    txploss: count('Number of transmitted packets lost'),
    rxploss: count('Number of received packets lost'),
    remote_maxrxploss: measure('Maximum number of packets lost on remote side'),
    remote_minrxploss: measure('Minimum number of packets lost on remote side'),
    remote_normdevrxploss: measure('Average number of packets lost on remote side'),
    remote_stdevrxploss: measure('Standard deviation packets lost on remote side'),
    local_maxrxploss: measure('Maximum number of packets lost on local side'),
    local_minrxploss: measure('Minimum number of packets lost on local side'),
    local_normdevrxploss: measure('Average number of packets lost on local side'),
    local_stdevrxploss: measure('Standard deviation packets lost on local side'),
    rtt: measure('Total round trip time'),
    maxrtt: measure('Maximum round trip time'),
    minrtt: measure('Minimum round trip time'),
    normdevrtt: measure('Average round trip time'),
    stdevrtt: measure('Standard deviation round trip time'),
    local_ssrc: count('Our SSRC'),
    remote_ssrc: count('Their SSRC'),
    txoctetcount: count('Number of octets transmitted'),
    rxoctetcount: count('Number of octets received'),
    channel_uniqueid: { type: 'string', description: 'Id of the channel that owns the RTP session', required: true },
  },
} as const satisfies ModelFor<RtpStatistics>;

export const VariablesModel = {
  id: 'Variables',
  description: 'The values of several variables.',
  properties: {
    variables: { type: 'object', description: 'Variable name to value', required: true },
  },
} as const satisfies ModelFor<{ variables: Record<string, string> }>;

export const CHANNEL_MODELS = [ChannelModel, CallerIdModel, DialplanCepModel, RtpStatModel, VariablesModel];
