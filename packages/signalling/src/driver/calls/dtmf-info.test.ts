import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDtmfInfo } from './dtmf-info.js';

test('dtmf-relay: Signal and Duration lines', () => {
  assert.deepEqual(parseDtmfInfo('application/dtmf-relay', 'Signal=5\r\nDuration=160\r\n'), { digit: '5', durationMs: 160 });
  assert.deepEqual(parseDtmfInfo('application/dtmf-relay', 'Signal= #\nDuration= 250'), { digit: '#', durationMs: 250 });
  assert.deepEqual(parseDtmfInfo('application/dtmf-relay', 'Signal=11\r\nDuration=100'), { digit: '#', durationMs: 100 });
  assert.deepEqual(parseDtmfInfo('application/dtmf-relay', 'Signal=a'), { digit: 'A', durationMs: 100 });
});

test('application/dtmf: the digit alone', () => {
  assert.deepEqual(parseDtmfInfo('application/dtmf', '7\r\n'), { digit: '7', durationMs: 100 });
});

test('hostile or foreign bodies: no digit, never a throw', () => {
  assert.equal(parseDtmfInfo('application/dtmf-relay', 'Signal=16\r\nDuration=100'), null);
  assert.equal(parseDtmfInfo('application/dtmf-relay', 'Duration=100'), null);
  assert.equal(parseDtmfInfo('application/dtmf-relay', 'Signal=55'), null);
  assert.equal(parseDtmfInfo('application/dtmf', 'x'.repeat(5000)), null);
  assert.deepEqual(parseDtmfInfo('application/dtmf-relay', 'Signal=1\r\nDuration=99999999'), { digit: '1', durationMs: 100 });
  assert.equal(parseDtmfInfo('application/sdp', 'v=0'), undefined);
  assert.equal(parseDtmfInfo(undefined, 'Signal=1'), undefined);
});
