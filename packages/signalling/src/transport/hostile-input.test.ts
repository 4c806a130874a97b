/**
 * Regression tests for what an outsider can send over UDP: requests that used to leave a
 * transaction open for ever, requests refused silently, and Via parameters that used to aim our
 * responses (and their retransmissions) at a third party. Real UDP sockets on loopback; the
 * transaction timers run on a fake clock so Timer G/H/J are checked without waiting.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type Logger, silentLogger } from '@switchboard/core';
import { createResponse } from '../message/builders.js';
import { newTag } from '../message/ids.js';
import type { SipRequest } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { UdpPeer, waitFor } from '../test-support/udp-peer.js';
import { TIMER_H, TIMER_J } from '../transaction/timers.js';
import { type ServerTransaction, TransactionLayer } from '../transaction/transaction-layer.js';
import { UserAgentCore } from '../ua/user-agent-core.js';
import { nativeDatagramSocketsAvailable } from './native-datagram-socket.js';
import { UdpTransport } from './udp-transport.js';

function invite(peer: UdpPeer, options: { branch?: string; contact?: string; via?: string; extra?: string[] } = {}): string {
  const via = options.via ?? `SIP/2.0/UDP 127.0.0.1:${peer.port};branch=${options.branch ?? `z9hG4bK${newTag()}`}`;
  return [
    'INVITE sip:100@127.0.0.1 SIP/2.0',
    `Via: ${via}`,
    ...(options.extra ?? []),
    'Max-Forwards: 70',
    'From: <sip:alice@127.0.0.1>;tag=a1',
    'To: <sip:100@127.0.0.1>',
    `Call-ID: ${newTag()}@hostile`,
    'CSeq: 1 INVITE',
    `Contact: ${options.contact ?? `<sip:alice@127.0.0.1:${peer.port}>`}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

// Both sockets a UDP transport may stand on: the native one (its default where built) and dgram.
for (const nativeSocket of [true, false]) {
  describe(
    `hostile SIP input over UDP (${nativeSocket ? 'native socket' : 'dgram'})`,
    {
      skip: nativeSocket && !nativeDatagramSocketsAvailable() ? 'the native SIP UDP socket is not built here' : false,
    },
    () => {
      let clock: FakeClock;
      let transport: UdpTransport;
      let layer: TransactionLayer;
      let peer: UdpPeer;

      beforeEach(async () => {
        clock = new FakeClock();
        transport = new UdpTransport({ name: 'udp', bindAddress: '127.0.0.1', bindPort: 0, logger: silentLogger, nativeSocket });
        await transport.listen();
        assert.equal(transport.socketKind, nativeSocket ? 'native' : 'dgram');
        layer = new TransactionLayer({ clock, logger: silentLogger });
        transport.delegate = layer;
        peer = await UdpPeer.open();
      });

      afterEach(async () => {
        layer.close();
        await transport.close();
        await peer.close();
      });

      it('answers an INVITE whose Contact does not parse 400 without creating a transaction', async () => {
        new UserAgentCore({ transactions: layer, clock, logger: silentLogger });
        await peer.send(invite(peer, { contact: '<sip:alice@127.0.0.1:5060' }), transport.localPort);
        const response = await peer.expectResponse(400, 'INVITE');
        assert.match(response.getHeader('Warning') ?? '', /Contact|name-addr|URI|>/i);
        await peer.expectNothing((m) => m.type === 'response' && m.status === 100);
        assert.equal(layer.serverTransactionCount, 0);
      });

      it('answers a SUBSCRIBE whose Contact does not parse 400 (was 500)', async () => {
        new UserAgentCore({ transactions: layer, clock, logger: silentLogger });
        const subscribe = invite(peer, { contact: '"open <sip:x@127.0.0.1>' })
          .replace(/INVITE/g, 'SUBSCRIBE')
          .replace('Max-Forwards: 70', 'Max-Forwards: 70\r\nEvent: presence\r\nExpires: 600');
        await peer.send(subscribe, transport.localPort);
        await peer.expectResponse(400, 'SUBSCRIBE');
        assert.equal(layer.serverTransactionCount, 0);
      });

      it('ends a transaction whose user throws with a final response, and forgets it after Timer J', async () => {
        layer.user = {
          onRequest: () => {
            throw new Error('transaction user bug');
          },
          onStrayResponse: () => {},
        };
        const options = invite(peer).replace(/INVITE/g, 'OPTIONS');
        await peer.send(options, transport.localPort);
        await peer.expectResponse(500, 'OPTIONS');
        assert.equal(layer.serverTransactionCount, 1);
        clock.advance(TIMER_J);
        assert.equal(layer.serverTransactionCount, 0);
      });

      it('ends an INVITE transaction whose user throws after the 100 Trying, gone after Timer H', async () => {
        layer.user = {
          onRequest: (request: SipRequest, _context, transaction: ServerTransaction | undefined) => {
            transaction?.respond(createResponse(request, 100));
            throw new Error('transaction user bug after 100');
          },
          onStrayResponse: () => {},
        };
        await peer.send(invite(peer), transport.localPort);
        await peer.expectResponse(100, 'INVITE');
        await peer.expectResponse(500, 'INVITE');
        clock.advance(TIMER_H);
        assert.equal(layer.serverTransactionCount, 0);
      });

      it('answers 400 to a request with more than 100 headers when its identifying headers come last', async () => {
        const padding = Array.from({ length: 150 }, (_, i) => `X-Pad-${i}: ${i}`);
        const text = invite(peer).replace(
          'INVITE sip:100@127.0.0.1 SIP/2.0\r\n',
          `INVITE sip:100@127.0.0.1 SIP/2.0\r\n${padding.join('\r\n')}\r\n`,
        );
        await peer.send(text, transport.localPort);
        const response = await peer.expectResponse(400, 'INVITE');
        assert.match(response.getHeader('Warning') ?? '', /more than 100 headers/);
      });

      it('answers 400 to a request with a header line over 8 KB', async () => {
        await peer.send(invite(peer, { extra: [`Subject: ${'x'.repeat(9000)}`] }), transport.localPort);
        const response = await peer.expectResponse(400, 'INVITE');
        assert.match(response.getHeader('Warning') ?? '', /too long/);
      });

      it('sends responses to the real source whatever maddr and received the Via names', async () => {
        new UserAgentCore({ transactions: layer, clock, logger: silentLogger });
        const via = `SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${newTag()};maddr=192.0.2.77;received=192.0.2.78;rport=9`;
        await peer.send(invite(peer, { via }).replace(/INVITE/g, 'OPTIONS'), transport.localPort);
        const response = await peer.expectResponse(200, 'OPTIONS');
        assert.equal(response.topVia.received, '127.0.0.1');
        assert.equal(response.topVia.rport, peer.port);
        assert.equal(response.topVia.maddr, undefined);
      });

      it('does not retransmit a final INVITE response to a source that never acknowledged one', async () => {
        layer.user = {
          onRequest: (request: SipRequest, _context, transaction: ServerTransaction | undefined) => {
            if (request.method === 'INVITE') transaction?.respond(createResponse(request, 401, { toTag: newTag() }));
          },
          onStrayResponse: () => {},
        };
        const branch = `z9hG4bK${newTag()}`;
        const first = invite(peer, { branch });
        await peer.send(first, transport.localPort);
        await peer.expectResponse(401, 'INVITE');
        for (let i = 0; i < 10; i++) clock.advance(TIMER_H / 10);
        await peer.expectNothing((m) => m.type === 'response' && m.status === 401, 100);
        assert.equal(layer.serverTransactionCount, 0);

        // A source that acknowledges a final response has shown it is where it says: Timer G applies.
        const second = invite(peer);
        await peer.send(second, transport.localPort);
        const response = await peer.expectResponse(401, 'INVITE');
        const ack = second
          .replace('INVITE sip:100@127.0.0.1 SIP/2.0', 'ACK sip:100@127.0.0.1 SIP/2.0')
          .replace('CSeq: 1 INVITE', 'CSeq: 1 ACK')
          .replace('To: <sip:100@127.0.0.1>', `To: <sip:100@127.0.0.1>;tag=${response.to.tag}`);
        await peer.send(ack, transport.localPort);
        await waitFor(() => layer.serverTransactionCount <= 1, 'ACK absorbed');
        const third = invite(peer);
        await peer.send(third, transport.localPort);
        await peer.expectResponse(401, 'INVITE');
        clock.advance(500);
        await peer.expectResponse(401, 'INVITE');
      });

      it('logs a flood of malformed requests as a few lines without stack traces', async () => {
        const lines: Array<{ level: string; text: string }> = [];
        const at =
          (level: string) =>
          (obj: object | string, msg?: string): void => {
            lines.push({
              level,
              text: `${msg ?? ''} ${JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? { stack: v.stack } : v))}`,
            });
          };
        const logger: Logger = {
          trace: at('trace'),
          debug: at('debug'),
          info: at('info'),
          warn: at('warn'),
          error: at('error'),
          child: () => logger,
        };
        const noisy = new UdpTransport({ name: 'udp', bindAddress: '127.0.0.1', bindPort: 0, logger, nativeSocket });
        await noisy.listen();
        const noisyLayer = new TransactionLayer({ clock, logger });
        noisy.delegate = noisyLayer;
        new UserAgentCore({ transactions: noisyLayer, clock, logger });
        try {
          for (let i = 0; i < 200; i++) {
            await peer.send(
              invite(peer, { contact: i % 2 === 0 ? '<sip:alice@127.0.0.1:5060' : '"unterminated <sip:a@b>' }),
              noisy.localPort,
            );
            await peer.send(`GARBAGE ${i}\r\n\r\n`, noisy.localPort);
          }
          await waitFor(() => peer.pending.length >= 200, '200 answers');
          assert.ok(lines.length <= 6, `${lines.length} log lines for 400 bad packets`);
          assert.equal(lines.filter((line) => line.level === 'error').length, 0);
          assert.ok(!lines.some((line) => line.text.includes('    at ')), 'no stack trace in the log');
        } finally {
          noisyLayer.close();
          await noisy.close();
        }
      });
    },
  );
}
