import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SwitchboardCore } from '../core.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '../test-support.js';

describe('channelvars entries', () => {
  it('carry variables and the values of dialplan functions, following changes', async () => {
    const core = new SwitchboardCore({ config: testCoreConfig(), media: new RecordingMediaEngine() });
    const channel = core.channels.create(
      sipChannelInit('alice', new RecordingTechnology(), {
        state: 'Ring',
        caller: { name: 'Alice', number: '100' },
        language: 'fr',
        snapshotVariables: ['CALLERID(num)', 'CALLERID(name)', 'CHANNEL(language)', 'CHANNEL(state)', 'LEN(abc)', 'PLAIN', 'NOSUCH(x)'],
      }),
    );
    channel.setVariable('PLAIN', 'yes');
    assert.deepEqual(channel.snapshot().channelvars, {
      'CALLERID(num)': '100',
      'CALLERID(name)': 'Alice',
      'CHANNEL(language)': 'fr',
      'CHANNEL(state)': 'Ring',
      'LEN(abc)': '3',
      PLAIN: 'yes',
      'NOSUCH(x)': '',
    });
    await core.channelVariables.set(channel, { name: 'CALLERID(num)', value: '555', reportEvents: false });
    assert.equal(channel.snapshot().channelvars?.['CALLERID(num)'], '555');
  });
});
