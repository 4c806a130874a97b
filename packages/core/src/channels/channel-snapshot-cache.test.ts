import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIni } from '../config/ini.js';
import { SwitchboardCore } from '../core.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { FakeChannelDriver, sipChannelInit, RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import type { Channel } from './channel.js';

function newCore(): SwitchboardCore {
  const dialplan = parseDialplan(parseIni('[in]\nexten => 100,1,NoOp()\n', 'extensions.conf'), silentLogger);
  const core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine() });
  core.registerDriver(new FakeChannelDriver());
  return core;
}

const newChannel = (core: SwitchboardCore, name: string, snapshotVariables: string[] = []) =>
  core.channels.create(
    sipChannelInit('alice', new RecordingTechnology(), {
      name,
      state: 'Ring',
      dialplan: { context: 'in', exten: '100', priority: 1 },
      snapshotVariables,
    }),
  );

/** Each change, and what the next snapshot must show afterwards. */
const CHANGES: readonly [string, (c: Channel) => void, (s: ReturnType<Channel['snapshot']>) => boolean][] = [
  ['setState', (c) => c.setState('Up'), (s) => s.state === 'Up'],
  ['setVariable of a shown variable', (c) => c.setVariable('SHOWN', 'yes'), (s) => s.channelvars?.SHOWN === 'yes'],
  ['unsetVariable', (c) => c.unsetVariable('SHOWN'), (s) => s.channelvars?.SHOWN === ''],
  ['reportVariable', (c) => c.reportVariable('LATER'), (s) => s.channelvars?.LATER === ''],
  ['setCaller', (c) => c.setCaller({ name: 'Bob', number: '200' }), (s) => s.caller.number === '200'],
  [
    'caller assigned',
    (c) => {
      c.caller = { name: 'Carol', number: '300' };
    },
    (s) => s.caller.name === 'Carol',
  ],
  ['setConnected', (c) => c.setConnected({ name: 'Dan', number: '400' }), (s) => s.connected.number === '400'],
  [
    'accountcode',
    (c) => {
      c.accountcode = 'acct';
    },
    (s) => s.accountcode === 'acct',
  ],
  [
    'language',
    (c) => {
      c.language = 'fr';
    },
    (s) => s.language === 'fr',
  ],
  [
    'callerRdnis',
    (c) => {
      c.callerRdnis = '555';
    },
    (s) => s.caller_rdnis === '555',
  ],
  [
    'tenantId',
    (c) => {
      c.tenantId = 't1';
    },
    (s) => s.tenantid === 't1',
  ],
  [
    'enterDialplanApp',
    (c) => c.enterDialplanApp({ context: 'in', exten: '100', priority: 2 }, 'Wait', '1'),
    (s) => s.dialplan.priority === 2 && s.dialplan.app_name === 'Wait',
  ],
];

describe('Channel.snapshot (kept until something it shows changes)', () => {
  it('hands out one frozen snapshot while nothing changes', () => {
    const channel = newChannel(newCore(), 'SIP/alice-1', ['SHOWN']);
    const first = channel.snapshot();
    assert.equal(channel.snapshot(), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.caller) && Object.isFrozen(first.dialplan));
    assert.ok(Object.isFrozen(first.channelvars));
    assert.throws(() => {
      (first as { state: string }).state = 'Up';
    }, TypeError);
    // A variable that is not shown does not change the snapshot.
    channel.setVariable('HIDDEN', 'x');
    assert.equal(channel.snapshot(), first);
  });

  for (const [what, change, shows] of CHANGES) {
    it(`builds a new snapshot after ${what}`, () => {
      const channel = newChannel(newCore(), 'SIP/alice-2', ['SHOWN']);
      const before = channel.snapshot();
      change(channel);
      const after = channel.snapshot();
      assert.notEqual(after, before);
      assert.ok(shows(after), `the snapshot after ${what} shows the change`);
      assert.equal(channel.snapshot(), after);
    });
  }

  it('builds afresh every time for a channel that shows a dialplan function', () => {
    const channel = newChannel(newCore(), 'SIP/alice-3', ['CHANNEL(language)']);
    const first = channel.snapshot();
    assert.equal(first.channelvars?.['CHANNEL(language)'], 'en');
    assert.notEqual(channel.snapshot(), first);
    assert.deepEqual(channel.snapshot(), first);
  });
});
