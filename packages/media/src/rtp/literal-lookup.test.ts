import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { describe, it } from 'node:test';
import { literalAddressLookup } from './literal-lookup.js';

describe('literalAddressLookup', () => {
  it('answers IPv4 and IPv6 literals synchronously', () => {
    const answers: Array<[string, number]> = [];
    literalAddressLookup('127.0.0.1', 4, (error, address, family) => {
      assert.equal(error, null);
      answers.push([address, family]);
    });
    literalAddressLookup('::1', { family: 6 }, (_error, address, family) => answers.push([address, family]));
    assert.deepEqual(answers, [
      ['127.0.0.1', 4],
      ['::1', 6],
    ]);
  });

  it('resolves a name through dns.lookup', async () => {
    const [address, family] = await new Promise<[string, number]>((resolve, reject) =>
      literalAddressLookup('localhost', 4, (error, a, f) => (error ? reject(error) : resolve([a, f]))),
    );
    assert.equal(family, 4);
    assert.match(address, /^127\./);
  });

  it('carries datagrams on a socket that uses it', async () => {
    const receiver = dgram.createSocket('udp4');
    const sender = dgram.createSocket({ type: 'udp4', lookup: literalAddressLookup });
    try {
      await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
      const got = new Promise<Buffer>((resolve) => receiver.once('message', resolve));
      await new Promise<void>((resolve, reject) =>
        sender.send(Buffer.from('rtp'), receiver.address().port, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
      );
      assert.equal((await got).toString(), 'rtp');
    } finally {
      receiver.close();
      sender.close();
    }
  });
});
