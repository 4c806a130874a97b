/**
 * switchboard.conf `highpriority = yes` against the real process: the start-up log says what the
 * threads run at, every thread of the process (the media worker, started after the raise, among
 * them) is on SCHED_RR where the machine allows it, and a call's prompt still plays.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { waitFor } from './audio-analysis.js';
import { REPO_ROOT, runSipp, startSwitchboard } from './harness.js';
import { RtpReceiver } from './rtp-receiver.js';

const CAP_SYS_NICE = 23n;

function hasSysNice(): boolean {
  const line = readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\s*([0-9a-f]+)$/m);
  return line !== null && ((BigInt(`0x${line[1]}`) >> CAP_SYS_NICE) & 1n) === 1n;
}

/** Whether SCHED_RR is granted here (a container's cgroup may refuse it even with the capability). */
function realtimeGranted(): boolean {
  const probe = spawnSync('chrt', ['-r', '10', 'true'], { stdio: 'ignore' });
  return probe.error === undefined ? probe.status === 0 : hasSysNice();
}

/** Scheduling policy of every thread of a process: /proc/<pid>/task/<tid>/stat field 41 (2 = SCHED_RR). */
function policies(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
  });
}

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
      if (realtimeGranted()) {
        const line = sb.logs.find((entry) => entry.msg === 'high priority: realtime scheduling');
        assert.ok(line !== undefined, 'the start-up log says the threads were raised');
        assert.equal(line.policy, 'SCHED_RR');
        assert.equal(line.priority, 10);
        const all = policies(pid);
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
