import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger, systemClock } from '@switchboard/core';
import { createResponse } from '../message/builders.js';
import { headerFields, SipRequest, type SipResponse } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { RecordingTransport } from '../test-support/fake-transport.js';
import { LoopLagSampler, OverloadControl } from './overload-control.js';
import { type ServerTransaction, TransactionLayer } from './transaction-layer.js';

const SOURCE = { address: '192.0.2.9', port: 5062 };

function invite(n: number, toTag?: string): SipRequest {
  return new SipRequest(
    'INVITE',
    'sip:bob@192.0.2.1',
    headerFields([
      ['Via', `SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bKov${n}`],
      ['Max-Forwards', '70'],
      ['From', '<sip:alice@192.0.2.9>;tag=a1'],
      ['To', toTag === undefined ? '<sip:bob@192.0.2.1>' : `<sip:bob@192.0.2.1>;tag=${toTag}`],
      ['Call-ID', `call-${n}`],
      ['CSeq', '1 INVITE'],
      ['Contact', '<sip:alice@192.0.2.9:5062>'],
    ]),
  );
}

describe('overload control', () => {
  it('limits new calls once the smoothed loop lag passes its limit and recovers once it is low', () => {
    const clock = new FakeClock();
    const control = new OverloadControl({ maxLoopLagMs: 100, maxInvitesInProgress: 1000 }, clock);
    control.recordLag(150);
    assert.equal(control.shouldShed(0), false, 'one late timer is smoothed away');
    for (let i = 0; i < 15; i++) control.recordLag(150);
    assert.equal(control.shouldShed(0), false, 'the first calls of a short burst pass');
    assert.equal(control.state, 'limiting');
    assert.equal(control.shouldShed(0), false);
    assert.equal(control.shouldShed(0), true);
    assert.equal(control.shouldShed(0, true), false, 'an answer to our challenge is still admitted');
    for (let i = 0; i < 20; i++) control.recordLag(500);
    assert.equal(control.shouldShed(0, true), true, 'unless the delay passes four times the limit');
    for (let i = 0; i < 20; i++) control.recordLag(60);
    clock.advance(500);
    assert.equal(control.state, 'limiting', 'still over a quarter of the limit');
    for (let i = 0; i < 20; i++) control.recordLag(0);
    clock.advance(2000);
    assert.equal(control.shouldShed(0), false);
    assert.equal(control.state, 'normal');
    assert.ok(control.takeShedCount() >= 2);
  });

  it('admits new calls at an adaptive rate while limiting: cut while behind, raised once caught up', () => {
    const clock = new FakeClock();
    const control = new OverloadControl({ maxLoopLagMs: 100 }, clock);
    // 300 new calls per second admitted before the overload, the queue empty (until 250 ms before).
    for (let i = 0; i < 300; i++) {
      if (i < 200) control.recordQueueDelay(0);
      assert.equal(control.shouldShed(0), false);
      clock.advance(1000 / 300);
    }
    control.recordQueueDelay(1000);
    assert.equal(control.shouldShed(0), false, 'the bucket starts with a short burst');
    assert.equal(control.state, 'limiting');
    const startRate = control.admissionRate;
    assert.ok(startRate > 230 && startRate < 280, `starts at 85 % of the admitted rate, got ${startRate}`);
    // Offered 600/s while the queue stays deep: the rate falls and admissions follow it.
    let admitted = 0;
    for (let i = 0; i < 600; i++) {
      clock.advance(1000 / 600);
      control.recordQueueDelay(1000);
      if (!control.shouldShed(0)) admitted++;
    }
    assert.ok(control.admissionRate < startRate * 0.75, `rate cut to ${control.admissionRate}`);
    assert.ok(admitted > 0 && admitted < startRate, `admitted ${admitted} in the second`);
    // The queue drains: the rate climbs back until nothing is refused, and then limiting ends.
    const low = control.admissionRate;
    let admittedLastSecond = 0;
    for (let i = 0; i < 6 * 600; i++) {
      clock.advance(1000 / 600);
      control.recordQueueDelay(5);
      if (!control.shouldShed(0) && i >= 5 * 600) admittedLastSecond++;
    }
    assert.equal(control.state, 'normal', `rate raised from ${low}`);
    assert.equal(admittedLastSecond, 600);
  });

  /**
   * Two seconds of `steadyRate` calls/s with an empty queue, then (after `between`) a jump to 900/s
   * that the queue shows after half a second: the admission rate limiting starts at.
   */
  function startRateAfterJump(limits: { maxLoopLagMs: number }, steadyRate: number, between?: (control: OverloadControl) => void): number {
    const clock = new FakeClock();
    const control = new OverloadControl(limits, clock);
    for (let i = 0; i < 2 * steadyRate; i++) {
      control.recordQueueDelay(0);
      control.shouldShed(0);
      clock.advance(1000 / steadyRate);
    }
    between?.(control);
    for (let i = 0; i < 450; i++) {
      control.recordQueueDelay(i < 150 ? 20 : 150);
      control.shouldShed(0);
      clock.advance(1000 / 900);
    }
    assert.equal(control.state, 'limiting');
    return control.admissionRate;
  }

  it('starts limiting a jump of load at the rate the server last kept up with, not at the jump', () => {
    const rate = startRateAfterJump({ maxLoopLagMs: 100 }, 200);
    assert.ok(rate >= 190 && rate <= 260, `starts near the 200/s kept up with, not at 85 % of the jump: ${rate}`);
  });

  it('learns the rate the server kept up with while the shedding is off, and starts from it once turned on', () => {
    // Half of the last second's admissions would be ~325/s.
    const rate = startRateAfterJump({ maxLoopLagMs: 0 }, 400, (control) => control.setLimits({ maxLoopLagMs: 100 }));
    assert.ok(rate >= 380 && rate <= 460, `starts near the 400/s kept up with before the control was on: ${rate}`);
  });

  it('answers new INVITEs 503 with Retry-After and no transaction while too many calls are in setup', () => {
    const clock = new FakeClock();
    const transport = new RecordingTransport();
    const layer = new TransactionLayer({ clock, logger: silentLogger, overload: { maxInvitesInProgress: 3, retryAfterS: 7 } });
    const pending: Array<[SipRequest, ServerTransaction]> = [];
    layer.user = {
      onRequest: (request, _context, transaction) => {
        if (transaction !== undefined) pending.push([request, transaction]);
      },
      onStrayResponse: () => {},
    };
    for (let n = 1; n <= 3; n++) layer.onRequest(invite(n), { transport, source: SOURCE });
    assert.equal(layer.invitesInProgress, 3);
    layer.onRequest(invite(4), { transport, source: SOURCE });
    const refused = transport.sent.at(-1)?.message as SipResponse;
    assert.equal(refused.status, 503);
    assert.equal(refused.getHeader('Retry-After'), '7');
    assert.equal(layer.serverTransactionCount, 3);
    assert.equal(pending.length, 3);

    // An INVITE within a dialog (a re-INVITE) is never shed.
    layer.onRequest(invite(5, 'dialog-tag'), { transport, source: SOURCE });
    assert.equal(pending.length, 4);

    // Calls leave setup as they are answered; below 90 % of the limit new calls are taken again.
    for (const [request, transaction] of pending.splice(0, 3)) transaction.respond(createResponse(request, 486, { toTag: 'b' }));
    assert.equal(layer.invitesInProgress, 1);
    layer.onRequest(invite(6), { transport, source: SOURCE });
    assert.equal(pending.length, 2);
    layer.close();
  });

  it('answers new INVITEs 503 while requests wait in the receive queue, and lets BYE through', () => {
    const clock = new FakeClock();
    const transport = new RecordingTransport();
    const layer = new TransactionLayer({ clock, logger: silentLogger, overload: { maxLoopLagMs: 100 } });
    const seen: string[] = [];
    layer.user = { onRequest: (request) => seen.push(request.method), onStrayResponse: () => {} };
    for (let i = 0; i < 20; i++) layer.overload.recordQueueDelay(400);
    layer.onRequest(invite(1), { transport, source: SOURCE });
    layer.onRequest(invite(3), { transport, source: { address: '192.0.2.10', port: 5060 } });
    assert.deepEqual(seen, ['INVITE', 'INVITE'], 'the first calls of a short burst pass');
    layer.onRequest(invite(4), { transport, source: SOURCE });
    assert.equal((transport.sent.at(-1)?.message as SipResponse).status, 503);
    const bye = invite(2, 'x');
    bye.method = 'BYE';
    bye.setHeader('CSeq', '2 BYE');
    layer.onRequest(bye, { transport, source: SOURCE });
    assert.deepEqual(seen, ['INVITE', 'INVITE', 'BYE']);
    layer.close();
  });

  it('measures how late the main loop runs a timer', async () => {
    const samples: number[] = [];
    const sampler = new LoopLagSampler(systemClock, 10, (lag) => samples.push(lag));
    sampler.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const until = Date.now() + 250;
    while (Date.now() < until) {
      // Busy: the main loop cannot run timers.
    }
    await new Promise((resolve) => setTimeout(resolve, 40));
    sampler.stop();
    assert.ok(Math.max(...samples) >= 180, `largest lag ${Math.max(...samples)} ms`);
  });

  it('keeps admitting other callers while one address floods call attempts', () => {
    const clock = new FakeClock();
    const control = new OverloadControl({ maxLoopLagMs: 100 }, clock);
    control.recordQueueDelay(500);
    let flooderAdmitted = 0;
    let callerAdmitted = 0;
    // 2,000 attempts a second from one address, one every 100 ms from another, for 3 s.
    for (let ms = 0; ms < 3000; ms++) {
      clock.advance(1);
      control.recordQueueDelay(120);
      if (!control.shouldShed(0, false, '192.0.2.66')) flooderAdmitted++;
      if (!control.shouldShed(0, false, '192.0.2.66')) flooderAdmitted++;
      if (ms % 100 === 0 && !control.shouldShed(0, false, '198.51.100.7')) callerAdmitted++;
    }
    // Asking 30 times against 6,000, the caller still gets a fair part of what is admitted.
    const share = callerAdmitted / (callerAdmitted + flooderAdmitted);
    assert.ok(callerAdmitted >= 5 && share >= 1 / 3, `caller ${callerAdmitted}, flooder ${flooderAdmitted}`);
  });

  it('takes a standing queue for overload, not one stall of the loop', () => {
    const clock = new FakeClock();
    const control = new OverloadControl({ maxLoopLagMs: 100 }, clock);
    const probe = (delayMs: number) => {
      clock.advance(50);
      control.recordQueueDelay(delayMs);
    };
    for (let i = 0; i < 20; i++) probe(1);
    // A 300 ms stall: the probes around it waited, the next ones did not.
    probe(300);
    probe(260);
    probe(3);
    assert.equal(control.shouldShed(0), false);
    assert.equal(control.state, 'normal');
    // Every probe of a second waits: the queue stands.
    for (let i = 0; i < 25; i++) probe(180 + i);
    control.shouldShed(0);
    assert.equal(control.state, 'limiting');
  });
});
