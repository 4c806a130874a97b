/**
 * switchboard.conf `highpriority = yes` against the real process: the start-up log says what the
 * threads run at, every thread of the process (the media worker, started after the raise, among
 * them) is on SCHED_RR where the machine allows it, and a call's prompt still plays.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { realtimeSchedulingGranted, threadPolicies } from '@switchboard/media/testing';
import { waitFor } from './audio-analysis.js';
import { REPO_ROOT, runSipp, startSwitchboard } from './harness.js';
import { RtpReceiver } from './rtp-receiver.js';

describe('highpriority', () => {
  it('runs every thread of the server at realtime priority, and calls work', { timeout: 40_000 }, async () => {
    const sb = await startSwitchboard({
      extraFiles: {
        'switchboard.conf': `[options]\nsystemname = e2e\nmediaworkers = 1\nhighpriority = yes\n\n[directories]\nsounds = ${REPO_ROOT}sounds\n`,
      },
    });
    const rtp = await RtpReceiver.open();
    try {
      const pid = sb.process.pid as number;
      if (realtimeSchedulingGranted()) {
        const line = sb.logs.find((entry) => entry.msg === 'high priority: realtime scheduling');
        assert.ok(line !== undefined, 'the start-up log says the threads were raised');
        assert.equal(line.policy, 'SCHED_RR');
        assert.equal(line.priority, 10);
        const all = threadPolicies(pid);
        assert.ok(all.length >= 3, `${all.length} threads`);
        assert.deepEqual(
          all.filter((policy) => policy !== 2),
          [],
          'every thread on SCHED_RR',
        );
      } else {
        assert.ok(sb.logs.some((entry) => String(entry.msg).startsWith('high priority:') && entry.level === 40));
      }
      // Extension 200: Answer, Playback(hello-world), Hangup; the server ends the call.
      const call = await runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '200', keys: { rtpport: rtp.port } },
      );
      assert.equal(call.code, 0, call.stdout.slice(-2000));
      await waitFor('the prompt', () => rtp.packets.length >= 25, 5000);
    } finally {
      rtp.close();
      await sb.stop();
    }
  });
});
