/**
 * `[global] keep_alive_interval` on connection-oriented transports (a double-CRLF ping, RFC 5626
 * §3.5.1) and `max_forwards` on requests sent in client transactions.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { silentLogger } from '@switchboard/core';
import { parseMessage } from '../message/parser.js';
import type { SipRequest } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { TransactionLayer } from '../transaction/transaction-layer.js';
import { StreamTransport } from './stream-transport.js';
import type { PeerAddress, Transport } from './transport.js';

describe('keep_alive_interval and max_forwards', () => {
  it('pings every open TCP connection at the interval', { timeout: 10_000 }, async () => {
    const transport = new StreamTransport({
      name: 't',
      protocol: 'tcp',
      bindAddress: '127.0.0.1',
      bindPort: 0,
      keepAliveIntervalSeconds: 1,
      logger: silentLogger,
    });
    const bound = await transport.listen();
    const socket = connect(bound.port, '127.0.0.1');
    try {
      const received = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no keep-alive')), 3000);
        socket.on('data', (chunk: Buffer) => {
          clearTimeout(timer);
          resolve(chunk.toString());
        });
      });
      assert.equal(received, '\r\n\r\n');
    } finally {
      socket.destroy();
      await transport.close();
    }
  });

  it('writes max_forwards into requests sent in client transactions', () => {
    const layer = new TransactionLayer({ clock: new FakeClock(), logger: silentLogger, maxForwards: 20 });
    const sent: string[] = [];
    const transport = {
      name: 'fake',
      protocol: 'udp',
      viaTransport: 'UDP',
      reliable: false,
      send: async (message: { toString(): string }, _to: PeerAddress) => {
        sent.push(message.toString());
      },
    } as unknown as Transport;
    const request = parseMessage(
      Buffer.from(
        [
          'OPTIONS sip:bob@127.0.0.1 SIP/2.0',
          'Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKmf1',
          'Max-Forwards: 70',
          'From: <sip:a@127.0.0.1>;tag=1',
          'To: <sip:bob@127.0.0.1>',
          'Call-ID: mf1',
          'CSeq: 1 OPTIONS',
          'Content-Length: 0',
          '',
          '',
        ].join('\r\n'),
      ),
    ) as SipRequest;
    layer.sendRequest(request, transport, { address: '127.0.0.1', port: 5099 }, {
      onResponse: () => {},
      onTimeout: () => {},
      onTransportError: () => {},
    } as never);
    assert.equal(request.getHeader('Max-Forwards'), '20');
  });
});
