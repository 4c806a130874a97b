import type { ChannelSnapshot } from '@switchboard/core';

/** A channel as the API shows it, for the tests of events and their models (a quote in the caller's name). */
export const SAMPLE_CHANNEL: ChannelSnapshot = {
  id: '1700000000.1',
  protocol_id: 'call-1@127.0.0.1',
  name: 'SIP/alice-00000001',
  state: 'Ring',
  caller: { name: 'Alice "A"', number: '100' },
  connected: { name: '', number: '' },
  accountcode: '',
  dialplan: { context: 'in', exten: '100', priority: 1, app_name: 'App', app_data: 'door' },
  creationtime: '2026-11-24T06:00:00.000+0000',
  language: 'en',
};
