import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { silentLogger } from '@switchboard/core';
import { createResponse } from '../message/builders.js';
import { parseMessage } from '../message/parser.js';
import { serializeMessage } from '../message/serializer.js';
import { headerFields, SipRequest, type SipResponse } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { collectGarbage } from '../test-support/collect-garbage.js';
import { RecordingTransport } from '../test-support/fake-transport.js';
import type { IncomingContext } from '../transport/transport.js';
import { InviteClientTransaction } from './invite-client.js';
import { InviteServerTransaction } from './invite-server.js';
import { NonInviteClientTransaction } from './non-invite-client.js';
import { NonInviteServerTransaction } from './non-invite-server.js';
import { T1, T2, T4, TIMER_A, TIMER_B, TIMER_D, TIMER_F, TIMER_H, TIMER_J } from './timers.js';
import { TransactionLayer, type ServerTransaction } from './transaction-layer.js';

const PEER = { address: '192.0.2.9', port: 5062 };

function request(method: string, branch = 'z9hG4bKtest1', seq = 1): SipRequest {
  return new SipRequest(
    method,
    'sip:bob@192.0.2.1',
    headerFields([
      ['Via', `SIP/2.0/UDP 192.0.2.9:5062;branch=${branch}`],
      ['Max-Forwards', '70'],
      ['From', '<sip:alice@192.0.2.9>;tag=a1'],
      ['To', '<sip:bob@192.0.2.1>'],
      ['Call-ID', 'call-1'],
      ['CSeq', `${seq} ${method}`],
    ]),
  );
}

/** A copy as the wire would deliver it (retransmissions are new objects). */
function copy<T extends SipRequest | SipResponse>(message: T): T {
  return parseMessage(serializeMessage(message)) as T;
}

function response(req: SipRequest, status: number): SipResponse {
  return createResponse(req, status, { toTag: 'b2' });
}

interface Recorded {
  responses: SipResponse[];
  timeouts: number;
  errors: unknown[];
}

function recorder(): Recorded & { onResponse(r: SipResponse): void; onTimeout(): void; onTransportError(e: unknown): void } {
  const rec: Recorded = { responses: [], timeouts: 0, errors: [] };
  return Object.assign(rec, {
    onResponse: (r: SipResponse) => rec.responses.push(r),
    onTimeout: () => rec.timeouts++,
    onTransportError: (e: unknown) => rec.errors.push(e),
  });
}

/** Lets rejected sends (promise callbacks) run. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('transactions (RFC 3261 §17) on a fake clock', () => {
  let clock: FakeClock;
  let transport: RecordingTransport;
  let terminated: string[];
  let env: ConstructorParameters<typeof InviteClientTransaction>[5];

  beforeEach(() => {
    clock = new FakeClock();
    transport = new RecordingTransport();
    terminated = [];
    env = { clock, logger: silentLogger, onTerminated: (t) => terminated.push(t.id) };
  });

  describe('INVITE client', () => {
    it('retransmits on Timer A with doubling intervals and times out on Timer B', () => {
      const user = recorder();
      const tx = new InviteClientTransaction('ict', request('INVITE'), transport, PEER, user, env);
      const times: number[] = [];
      const origin = clock.now();
      const send = transport.send.bind(transport);
      transport.send = async (m, d) => {
        times.push(clock.now() - origin);
        return send(m, d);
      };
      tx.start();
      clock.advance(TIMER_B - 1);
      // Sent at 0, then after A = T1, 2T1, 4T1, ... : 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s.
      assert.deepEqual(times, [0, 500, 1500, 3500, 7500, 15500, 31500]);
      assert.equal(user.timeouts, 0);
      clock.advance(1);
      assert.equal(user.timeouts, 1);
      assert.equal(tx.state, 'terminated');
      assert.deepEqual(terminated, ['ict']);
      assert.equal(clock.pendingCount, 0);
    });

    it('lets a response already waiting on the socket cancel a retransmission that is due (event-loop pause)', () => {
      const pendingIo: Array<() => void> = [];
      const user = recorder();
      const invite = request('INVITE');
      const tx = new InviteClientTransaction('ict-pause', invite, transport, PEER, user, {
        ...env,
        afterPendingIo: (fn) => pendingIo.push(fn),
      });
      tx.start();
      assert.equal(transport.sent.length, 1);
      clock.advance(TIMER_A);
      assert.equal(transport.sent.length, 1, 'Timer A waits for pending input');
      tx.receiveResponse(copy(response(invite, 180)));
      for (const fn of pendingIo.splice(0)) fn();
      assert.equal(transport.sent.length, 1, 'the 180 that was waiting made the retransmission pointless');
      assert.equal(tx.state, 'proceeding');
      tx.abort();
    });

    it('stops Timer A and B on a provisional response and ACKs a non-2xx final (Timer D)', () => {
      const user = recorder();
      const invite = request('INVITE');
      const tx = new InviteClientTransaction('ict', invite, transport, PEER, user, env);
      tx.start();
      tx.receiveResponse(copy(response(invite, 180)));
      assert.equal(tx.state, 'proceeding');
      clock.advance(TIMER_B * 2);
      assert.equal(transport.sent.length, 1, 'no retransmission in Proceeding');
      assert.equal(user.timeouts, 0);
      tx.receiveResponse(copy(response(invite, 486)));
      assert.equal(tx.state, 'completed');
      const ack = transport.sent[1].message;
      assert.equal(ack.type === 'request' ? ack.method : '', 'ACK');
      assert.equal(ack.cseq.seq, 1);
      assert.equal(ack.topVia.branch, 'z9hG4bKtest1');
      assert.equal(ack.to.tag, 'b2');
      // A retransmitted final response gets the ACK again, and goes no further up.
      tx.receiveResponse(copy(response(invite, 486)));
      assert.equal(transport.sent.length, 3);
      assert.equal(user.responses.map((r) => r.status).join(), '180,486');
      clock.advance(TIMER_D);
      assert.equal(tx.state, 'terminated');
    });

    it('passes 2xx responses up in Accepted and ends on Timer M (RFC 6026)', () => {
      const user = recorder();
      const invite = request('INVITE');
      const tx = new InviteClientTransaction('ict', invite, transport, PEER, user, env);
      tx.start();
      tx.receiveResponse(copy(response(invite, 200)));
      tx.receiveResponse(copy(response(invite, 200)));
      assert.equal(tx.state, 'accepted');
      assert.equal(user.responses.length, 2);
      clock.advance(64 * T1);
      assert.equal(tx.state, 'terminated');
    });

    it('terminates and informs the TU on a transport error', async () => {
      const user = recorder();
      transport.failSends = true;
      const tx = new InviteClientTransaction('ict', request('INVITE'), transport, PEER, user, env);
      tx.start();
      await flush();
      assert.equal(tx.state, 'terminated');
      assert.equal(user.errors.length, 1);
    });
  });

  describe('memory while an answered INVITE lingers (Timer L, Timer M: 64·T1)', () => {
    it('neither transaction keeps the INVITE once a final response went through it', async () => {
      const user = recorder();
      const make = () => {
        const sent = request('INVITE', 'z9hG4bKsent');
        const client = new InviteClientTransaction('ict-mem', sent, transport, PEER, user, env);
        client.start();
        client.receiveResponse(copy(response(sent, 200)));
        const received = request('INVITE', 'z9hG4bKreceived');
        const server = new InviteServerTransaction('ist-mem', received, transport, env);
        server.respond(response(received, 200));
        return { client, server, refs: [new WeakRef(sent), new WeakRef(received)] };
      };
      const { client, server, refs } = make();
      transport.sent.length = 0;
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      assert.equal(client.state, 'accepted');
      assert.equal(server.state, 'accepted');
      assert.equal(server.request, undefined);
      assert.deepEqual(
        refs.map((ref) => ref.deref()),
        [undefined, undefined],
        'both INVITEs are garbage while their transactions linger',
      );
    });
  });

  describe('non-INVITE client', () => {
    it('retransmits on Timer E doubling up to T2 and times out on Timer F', () => {
      const user = recorder();
      const times: number[] = [];
      const origin = clock.now();
      const send = transport.send.bind(transport);
      transport.send = async (m, d) => {
        times.push(clock.now() - origin);
        return send(m, d);
      };
      const tx = new NonInviteClientTransaction('nict', request('BYE'), transport, PEER, user, env);
      tx.start();
      clock.advance(TIMER_F - 1);
      // Intervals 0.5, 1, 2, 4, 4, 4, ... s (§17.1.2.2).
      const intervals = times.slice(1).map((t, i) => t - times[i]);
      assert.deepEqual(intervals.slice(0, 5), [500, 1000, 2000, 4000, 4000]);
      assert.ok(intervals.every((interval) => interval <= T2));
      assert.equal(user.timeouts, 0);
      clock.advance(1);
      assert.equal(user.timeouts, 1);
      assert.equal(tx.state, 'terminated');
      assert.equal(clock.pendingCount, 0);
    });

    it('retransmits every T2 in Proceeding, absorbs responses in Completed and ends on Timer K', () => {
      const user = recorder();
      const bye = request('BYE');
      const tx = new NonInviteClientTransaction('nict', bye, transport, PEER, user, env);
      tx.start();
      tx.receiveResponse(copy(response(bye, 100)));
      assert.equal(tx.state, 'proceeding');
      const before = transport.sent.length;
      clock.advance(T1);
      assert.equal(transport.sent.length, before + 1);
      clock.advance(T2 - 1);
      assert.equal(transport.sent.length, before + 1);
      clock.advance(1);
      assert.equal(transport.sent.length, before + 2);
      tx.receiveResponse(copy(response(bye, 200)));
      tx.receiveResponse(copy(response(bye, 200)));
      assert.equal(tx.state, 'completed');
      assert.deepEqual(
        user.responses.map((r) => r.status),
        [100, 200],
      );
      clock.advance(T4 - 1);
      assert.equal(tx.state, 'completed');
      clock.advance(1);
      assert.equal(tx.state, 'terminated');
    });
  });

  describe('INVITE server', () => {
    it('re-sends the last provisional on a retransmitted INVITE', () => {
      const invite = request('INVITE');
      const tx = new InviteServerTransaction('ist', invite, transport, env);
      tx.receiveRequest(copy(invite));
      assert.equal(transport.sent.length, 0, 'nothing to re-send before a response');
      tx.respond(response(invite, 180));
      tx.receiveRequest(copy(invite));
      assert.equal(transport.sent.length, 2);
      assert.equal((transport.sent[1].message as SipResponse).status, 180);
    });

    it('retransmits a non-2xx final on Timer G up to T2 and gives up on Timer H', () => {
      let timeouts = 0;
      const invite = request('INVITE');
      const tx = new InviteServerTransaction('ist', invite, transport, env);
      tx.user = { onTimeout: () => timeouts++ };
      const times: number[] = [];
      const origin = clock.now();
      const send = transport.send.bind(transport);
      transport.send = async (m, d) => {
        times.push(clock.now() - origin);
        return send(m, d);
      };
      tx.respond(response(invite, 486));
      assert.equal(tx.state, 'completed');
      clock.advance(TIMER_H - 1);
      const intervals = times.slice(1).map((t, i) => t - times[i]);
      assert.deepEqual(intervals.slice(0, 5), [500, 1000, 2000, 4000, 4000]);
      assert.equal(timeouts, 0);
      clock.advance(1);
      assert.equal(timeouts, 1);
      assert.equal(tx.state, 'terminated');
      // The responses go where the Via says (RFC 3261 §18.2.2).
      assert.deepEqual(transport.sent[0].destination, { address: '192.0.2.9', port: 5062 });
    });

    it('moves to Confirmed on ACK, absorbs further ACKs and ends on Timer I', () => {
      const invite = request('INVITE');
      const tx = new InviteServerTransaction('ist', invite, transport, env);
      tx.respond(response(invite, 603));
      tx.receiveRequest(copy(invite));
      assert.equal(transport.sent.length, 2, 'final response re-sent for a retransmitted INVITE');
      tx.receiveRequest(request('ACK'));
      assert.equal(tx.state, 'confirmed');
      clock.advance(T2 * 4);
      assert.equal(transport.sent.length, 2, 'Timer G stopped');
      tx.receiveRequest(request('ACK'));
      clock.advance(T4);
      assert.equal(tx.state, 'terminated');
      assert.equal(clock.pendingCount, 0);
    });

    it('absorbs INVITE retransmissions in Accepted and ends on Timer L', () => {
      const invite = request('INVITE');
      const tx = new InviteServerTransaction('ist', invite, transport, env);
      tx.respond(response(invite, 200));
      assert.equal(tx.state, 'accepted');
      tx.receiveRequest(copy(invite));
      assert.equal(transport.sent.length, 1);
      tx.respond(response(invite, 200));
      assert.equal(transport.sent.length, 2, '2xx retransmissions from the TU pass');
      clock.advance(64 * T1);
      assert.equal(tx.state, 'terminated');
    });
  });

  describe('non-INVITE server', () => {
    it('absorbs retransmissions in Trying, re-sends the final response in Completed, ends on Timer J', () => {
      const bye = request('BYE');
      const tx = new NonInviteServerTransaction('nist', transport, env);
      tx.receiveRequest(copy(bye));
      assert.equal(transport.sent.length, 0);
      tx.respond(response(bye, 200));
      tx.respond(response(bye, 500));
      assert.equal(transport.sent.length, 1, 'a second final response is dropped');
      tx.receiveRequest(copy(bye));
      assert.equal(transport.sent.length, 2);
      assert.equal((transport.sent[1].message as SipResponse).status, 200);
      clock.advance(TIMER_J - 1);
      assert.equal(tx.state, 'completed');
      clock.advance(1);
      assert.equal(tx.state, 'terminated');
    });
  });

  describe('matching (§17.1.3, §17.2.3)', () => {
    it('absorbs request retransmissions, matches ACK and CANCEL to the INVITE, and responses to clients', () => {
      const layer = new TransactionLayer({ clock, logger: silentLogger });
      const seen: Array<{ method: string; tx: ServerTransaction | undefined }> = [];
      const stray: SipResponse[] = [];
      layer.user = {
        onRequest: (req, _ctx, tx) => seen.push({ method: req.method, tx }),
        onStrayResponse: (res) => stray.push(res),
      };
      const context: IncomingContext = { transport, source: PEER };
      const invite = request('INVITE', 'z9hG4bKmatch');
      layer.onRequest(invite, context);
      layer.onRequest(copy(invite), context);
      assert.equal(seen.length, 1, 'the retransmission is absorbed');
      const ist = seen[0].tx;
      assert.ok(ist instanceof InviteServerTransaction);

      const cancel = request('CANCEL', 'z9hG4bKmatch');
      assert.equal(layer.findInviteTransaction(cancel), ist);
      layer.onRequest(cancel, context);
      assert.equal(seen[1].method, 'CANCEL');
      assert.ok(seen[1].tx instanceof NonInviteServerTransaction, 'CANCEL has its own transaction');

      ist.respond(response(invite, 487));
      layer.onRequest(request('ACK', 'z9hG4bKmatch'), context);
      assert.equal(ist.state, 'confirmed', 'ACK for a non-2xx matched the INVITE transaction');
      assert.equal(seen.length, 2);

      // Same branch, other sent-by: a different transaction.
      const other = request('INVITE', 'z9hG4bKmatch');
      other.setHeader('Via', 'SIP/2.0/UDP 192.0.2.77:5062;branch=z9hG4bKmatch');
      layer.onRequest(other, context);
      assert.equal(seen.length, 3);

      // An ACK for a 2xx (new branch) matches nothing and goes to the TU alone.
      layer.onRequest(request('ACK', 'z9hG4bKnew'), context);
      assert.equal(seen[3].method, 'ACK');
      assert.equal(seen[3].tx, undefined);

      // Client side: responses find their transaction by branch and CSeq method.
      const user = recorder();
      const options = request('OPTIONS', 'z9hG4bKclient');
      layer.sendRequest(options, transport, PEER, user);
      layer.onResponse(copy(response(options, 200)), context);
      assert.equal(user.responses.length, 1);
      const unmatched = response(request('OPTIONS', 'z9hG4bKunknown'), 200);
      layer.onResponse(unmatched, context);
      assert.equal(stray.length, 1);
      layer.close();
      assert.equal(clock.pendingCount, 0);
    });

    it('refuses new requests with 503 and Retry-After past the transaction limit, and serves them again below it', () => {
      const layer = new TransactionLayer({ clock, logger: silentLogger, maxServerTransactions: 2 });
      const seen: string[] = [];
      layer.user = {
        onRequest: (req, _ctx, tx) => seen.push(`${req.method}:${tx === undefined ? 'none' : 'tx'}`),
        onStrayResponse: () => {},
      };
      const context: IncomingContext = { transport, source: PEER };
      const first = request('OPTIONS', 'z9hG4bKcap1');
      layer.onRequest(first, context);
      layer.onRequest(request('OPTIONS', 'z9hG4bKcap2'), context);
      const sentBefore = transport.sent.length;
      layer.onRequest(request('OPTIONS', 'z9hG4bKcap3'), context);
      assert.deepEqual(seen, ['OPTIONS:tx', 'OPTIONS:tx'], 'the third request never reaches the TU');
      const refusal = transport.sent[sentBefore]?.message;
      assert.ok(refusal !== undefined && refusal.type === 'response');
      assert.equal(refusal.status, 503);
      assert.equal(refusal.getHeader('Retry-After'), '5');
      assert.equal(layer.serverTransactionCount, 2);
      // An ACK is never refused: it has no transaction to create.
      layer.onRequest(request('ACK', 'z9hG4bKcapack'), context);
      assert.equal(seen.at(-1), 'ACK:none');
      layer.close();
      layer.onRequest(request('OPTIONS', 'z9hG4bKcap4'), context);
      assert.equal(seen.at(-1), 'OPTIONS:tx', 'served again once transactions ended');
      layer.close();
    });
  });
});
