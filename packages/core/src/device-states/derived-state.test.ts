import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deriveDeviceState, type EndpointChannelView } from './derived-state.js';

const alerting: EndpointChannelView = { direction: 'outbound', state: 'Ringing' };
const dialling: EndpointChannelView = { direction: 'inbound', state: 'Ring' };
const talking: EndpointChannelView = { direction: 'inbound', state: 'Up' };

describe('deriveDeviceState', () => {
  it('follows reachability when the endpoint has no channel', () => {
    assert.equal(deriveDeviceState('online', []), 'NOT_INUSE');
    assert.equal(deriveDeviceState('offline', []), 'UNAVAILABLE');
    assert.equal(deriveDeviceState('unknown', []), 'UNKNOWN');
  });

  it('is RINGING, INUSE or RINGINUSE from the channels, whatever the reachability', () => {
    assert.equal(deriveDeviceState('offline', [alerting, { direction: 'outbound', state: 'Ring' }]), 'RINGING');
    assert.equal(deriveDeviceState('online', [dialling]), 'INUSE', 'a phone dialling out is in use');
    assert.equal(deriveDeviceState('online', [talking, talking]), 'INUSE');
    assert.equal(deriveDeviceState('online', [talking, alerting]), 'RINGINUSE');
    assert.equal(deriveDeviceState('unknown', [alerting, dialling]), 'RINGINUSE');
  });

  it('reads the channels from any iterable, and stops once both kinds were seen', () => {
    let read = 0;
    function* many(): Generator<EndpointChannelView> {
      for (let i = 0; i < 1000; i += 1) {
        read += 1;
        yield i % 2 === 0 ? alerting : talking;
      }
    }
    assert.equal(deriveDeviceState('online', many()), 'RINGINUSE');
    assert.equal(read, 2);
    assert.equal(deriveDeviceState('online', new Set([talking])), 'INUSE');
    assert.equal(deriveDeviceState('online', [{ ...talking, isDestroyed: true }]), 'NOT_INUSE', 'a destroyed channel does not count');
  });
});
