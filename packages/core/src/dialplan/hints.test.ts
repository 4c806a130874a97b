import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DialplanConfig } from '../config/types.js';
import { aggregateDeviceStates, findHint, parseHintDevices } from './hints.js';

describe('dialplan hints', () => {
  it('aggregates device states as Asterisk does', () => {
    assert.equal(aggregateDeviceStates([]), 'INVALID');
    assert.equal(aggregateDeviceStates(['NOT_INUSE', 'UNAVAILABLE']), 'NOT_INUSE');
    assert.equal(aggregateDeviceStates(['UNAVAILABLE', 'UNAVAILABLE']), 'UNAVAILABLE');
    assert.equal(aggregateDeviceStates(['NOT_INUSE', 'INUSE']), 'INUSE');
    assert.equal(aggregateDeviceStates(['RINGING', 'NOT_INUSE']), 'RINGING');
    assert.equal(aggregateDeviceStates(['RINGING', 'INUSE']), 'RINGINUSE');
    assert.equal(aggregateDeviceStates(['ONHOLD', 'RINGING']), 'RINGINUSE');
    assert.equal(aggregateDeviceStates(['BUSY', 'INUSE']), 'BUSY');
    assert.equal(aggregateDeviceStates(['ONHOLD', 'NOT_INUSE']), 'ONHOLD');
    assert.equal(aggregateDeviceStates(['INVALID', 'UNKNOWN']), 'UNKNOWN');
    assert.equal(aggregateDeviceStates(['gibberish']), 'UNKNOWN');
  });

  it('parses the devices of a hint', () => {
    assert.deepEqual(parseHintDevices('SIP/alice&App:desk'), ['SIP/alice', 'App:desk']);
    assert.deepEqual(parseHintDevices(' SIP/a & ,Presence:x'), ['SIP/a']);
    assert.deepEqual(parseHintDevices(''), []);
  });

  it('finds a hint in the context or through its includes, without looping', () => {
    const dialplan: DialplanConfig = {
      globals: {},
      contexts: [
        { name: 'phones', extensions: [], includes: ['lamps', 'phones'] },
        { name: 'lamps', extensions: [], includes: ['phones'], hints: { '101': ['SIP/alice', 'App:desk'] } },
        { name: 'own', extensions: [], includes: ['lamps'], hints: { '101': ['SIP/bob'] } },
      ],
    };
    assert.deepEqual(findHint(dialplan, 'phones', '101'), ['SIP/alice', 'App:desk']);
    assert.deepEqual(findHint(dialplan, 'own', '101'), ['SIP/bob']);
    assert.equal(findHint(dialplan, 'phones', '102'), undefined);
    assert.equal(findHint(dialplan, 'nowhere', '101'), undefined);
  });
});
