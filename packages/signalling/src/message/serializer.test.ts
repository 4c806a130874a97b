import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createResponse } from './builders.js';
import { parseMessage } from './parser.js';
import { GOOD } from './parser.fixtures.js';
import { serializeMessage } from './serializer.js';
import { headerFields, SipRequest, type SipMessage } from './sip-message.js';

const roundTrip = (message: SipMessage): SipMessage => parseMessage(serializeMessage(message));

describe('serializer', () => {
  for (const [name, text] of Object.entries(GOOD)) {
    it(`round-trips ${name}`, () => {
      const first = parseMessage(Buffer.from(text));
      const second = roundTrip(first);
      assert.equal(second.type, first.type);
      assert.deepEqual(
        second.headers.map((h) => [h.key, h.value]),
        first.headers
          .filter((h) => h.key !== 'content-length')
          .map((h) => [h.key, h.value])
          .concat([['content-length', String(first.body.length)]]),
      );
      assert.deepEqual(second.body, first.body);
      assert.equal(serializeMessage(second).toString(), serializeMessage(first).toString());
      assert.deepEqual(second.vias.map(String), first.vias.map(String));
      assert.equal(second.from.toString(), first.from.toString());
    });
  }

  it('writes Content-Length from the body, whatever the header said', () => {
    const request = new SipRequest('MESSAGE', 'sip:a@192.0.2.1', headerFields([['Content-Length', '999']]), Buffer.from('héllo'));
    const text = serializeMessage(request).toString();
    assert.match(text, /\r\nContent-Length: 6\r\n\r\nhéllo$/);
    assert.ok(!text.includes('999'));
  });

  it('cannot be made to inject headers through values, names or the reason phrase', () => {
    const request = parseMessage(Buffer.from(GOOD.invite));
    if (request.type !== 'request') throw new Error('expected a request');
    request.setHeader('Subject', 'hi\r\nX-Injected: yes\r\n\r\nbody');
    request.addHeader('X-Bad\r\nName', 'v');
    const response = createResponse(request, 486, { reason: 'Busy\r\nX-Evil: 1' });
    for (const message of [request, response]) {
      const reparsed = roundTrip(message);
      assert.equal(reparsed.getHeader('X-Injected'), undefined);
      assert.equal(reparsed.getHeader('X-Evil'), undefined);
      assert.equal(reparsed.getHeaderFields('Via').length, message.getHeaderFields('Via').length);
    }
    const reparsed = roundTrip(request);
    assert.equal(reparsed.getHeader('Subject'), 'hi  X-Injected: yes    body');
  });

  it('builds responses per RFC 3261 §8.2.6.2', () => {
    const request = parseMessage(Buffer.from(GOOD.folded));
    if (request.type !== 'request') throw new Error('expected a request');
    const response = createResponse(request, 200, { toTag: 'abc', headers: [['Allow', 'INVITE, ACK']] });
    const reparsed = roundTrip(response);
    assert.equal(reparsed.type, 'response');
    assert.equal(reparsed.vias.length, 3);
    assert.equal(reparsed.to.tag, 'abc');
    assert.equal(reparsed.from.tag, '1928301774');
    assert.equal(reparsed.cseq.seq, 63104);
    assert.equal(reparsed.getHeader('Allow'), 'INVITE, ACK');
    assert.equal(reparsed.type === 'response' ? reparsed.reason : '', 'OK');
  });
});
