/** The RTP timeout watch on a clock of the test's own: no sleeping, every check called by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkerNotification } from '../protocol.js';
import { RtpTimeouts, type WatchedLeg } from './rtp-timeouts.js';

class Leg implements WatchedLeg {
  packetsHeard = 0;
  remote: object | null = { address: '127.0.0.1', port: 4000 };
  constructor(readonly id: string) {}
}

function watch() {
  let now = 0;
  const notes: WorkerNotification[] = [];
  const timeouts = new RtpTimeouts(
    (n) => notes.push(n),
    () => now,
  );
  return {
    timeouts,
    notes,
    /** Moves the clock to `ms` and runs one check, as the timer would. */
    at(ms: number) {
      now = ms;
      timeouts.check();
    },
  };
}

describe('RtpTimeouts', () => {
  it('reports a leg that heard nothing for the timeout, once, with the seconds it was quiet', () => {
    const w = watch();
    w.timeouts.set(new Leg('a'), 2);
    w.at(1000);
    w.at(1999);
    assert.deepEqual(w.notes, []);
    w.at(2000);
    assert.deepEqual(w.notes, [{ type: 'legRtpTimeout', legId: 'a', seconds: 2 }]);
    w.at(3000);
    w.at(10_000);
    assert.equal(w.notes.length, 1, 'one notification: the timeout is disarmed by it');
    assert.equal(w.timeouts.armed, 0);
    w.timeouts.close();
  });

  it('starts the count again whenever a packet was heard since the last check', () => {
    const w = watch();
    const leg = new Leg('a');
    w.timeouts.set(leg, 2);
    for (let ms = 1000; ms <= 6000; ms += 1000) {
      leg.packetsHeard += 50;
      w.at(ms);
    }
    assert.deepEqual(w.notes, [], 'a talking peer is never timed out');
    w.at(7000);
    w.at(7999);
    assert.deepEqual(w.notes, []);
    w.at(8000);
    assert.deepEqual(w.notes, [{ type: 'legRtpTimeout', legId: 'a', seconds: 2 }]);
    w.timeouts.close();
  });

  it('does not count while the leg has no remote, and counts from the check that sees one', () => {
    const w = watch();
    const leg = new Leg('a');
    leg.remote = null;
    w.timeouts.set(leg, 1);
    w.at(5000);
    assert.deepEqual(w.notes, [], 'no remote yet: the call is not timed');
    leg.remote = { address: '127.0.0.1', port: 4000 };
    w.at(5500);
    w.at(6499);
    assert.deepEqual(w.notes, []);
    w.at(6500);
    assert.deepEqual(w.notes, [{ type: 'legRtpTimeout', legId: 'a', seconds: 1 }]);
    w.timeouts.close();
  });

  it('starts the count again when the remote is set again (media moved by a re-INVITE)', () => {
    const w = watch();
    const leg = new Leg('a');
    w.timeouts.set(leg, 2);
    w.at(1500);
    leg.remote = { address: '127.0.0.1', port: 4002 };
    w.at(2500);
    w.at(4499);
    assert.deepEqual(w.notes, []);
    w.at(4500);
    assert.deepEqual(w.notes, [{ type: 'legRtpTimeout', legId: 'a', seconds: 2 }]);
    w.timeouts.close();
  });

  it('is disarmed by 0 and by forget, and re-arming starts the count again', () => {
    const w = watch();
    const a = new Leg('a');
    const b = new Leg('b');
    const c = new Leg('c');
    w.timeouts.set(a, 1);
    w.timeouts.set(b, 1);
    w.timeouts.set(c, 1);
    w.at(500);
    w.timeouts.set(a, 0);
    w.timeouts.forget('b');
    w.timeouts.set(c, 3);
    assert.equal(w.timeouts.armed, 1);
    w.at(3000);
    assert.deepEqual(w.notes, []);
    w.at(3500);
    assert.deepEqual(w.notes, [{ type: 'legRtpTimeout', legId: 'c', seconds: 3 }]);
    w.timeouts.close();
  });

  it('watches each leg on its own', () => {
    const w = watch();
    const quiet = new Leg('quiet');
    const talking = new Leg('talking');
    w.timeouts.set(quiet, 1);
    w.timeouts.set(talking, 1);
    talking.packetsHeard = 10;
    w.at(1000);
    assert.deepEqual(w.notes, [{ type: 'legRtpTimeout', legId: 'quiet', seconds: 1 }]);
    assert.equal(w.timeouts.armed, 1);
    w.timeouts.close();
    assert.equal(w.timeouts.armed, 0);
  });
});
