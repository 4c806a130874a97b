import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SipConfig, SipEndpointConfig } from '@switchboard/core';
import { LiveSipConfig } from './live-config.js';

const endpoint = (name: string, context = 'default') => ({ name, context, aors: [] }) as unknown as SipEndpointConfig;
const config = (endpoints: SipEndpointConfig[], match?: string): SipConfig => ({
  transports: [],
  endpoints,
  aors: [],
  auths: [],
  identifies: match ? [{ name: 'id', endpoint: endpoints[0]?.name ?? '', match: [match] }] : [],
});

describe('LiveSipConfig', () => {
  it('replaces the objects in place and tells what changed', () => {
    const first = [endpoint('alice'), endpoint('bob')];
    const live = new LiveSipConfig(config(first));
    const arrays = live.config.endpoints;
    const delta = live.apply(config([endpoint('alice', 'office'), endpoint('carol')]));
    assert.deepEqual(delta, { added: ['carol'], removed: ['bob'], changed: ['alice'] });
    assert.equal(live.config.endpoints, arrays, 'the same array, new contents');
    assert.deepEqual([...live.endpoints.keys()], ['alice', 'carol']);
    // An object handed out before the change is left as it was (calls in progress keep theirs).
    assert.equal(first[0]?.context, 'default');
  });
});
