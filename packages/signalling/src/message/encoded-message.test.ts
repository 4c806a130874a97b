import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createResponse } from './builders.js';
import { EncodedResponse } from './encoded-message.js';
import { serializeMessage } from './serializer.js';
import { headerFields, SipRequest } from './sip-message.js';

describe('EncodedResponse', () => {
  it('holds its bytes in memory of its own, not in a slice of the shared pool it would keep alive', () => {
    const request = new SipRequest(
      'BYE',
      'sip:bob@192.0.2.1',
      headerFields([
        ['Via', 'SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bKenc'],
        ['From', '<sip:alice@192.0.2.9>;tag=a1'],
        ['To', '<sip:bob@192.0.2.1>;tag=b1'],
        ['Call-ID', 'call-enc'],
        ['CSeq', '2 BYE'],
      ]),
    );
    const response = createResponse(request, 200);
    const encoded = new EncodedResponse(response);
    assert.deepEqual(encoded.data, serializeMessage(response));
    assert.equal(encoded.data.byteOffset, 0);
    assert.equal(encoded.data.buffer.byteLength, encoded.data.length);
  });
});
