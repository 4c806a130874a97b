/**
 * Record() and MusicOnHold() against the real process: the caller is recorded into a WAV file
 * under the recordings directory until the maximum duration (RECORD_STATUS TIMEOUT), then
 * MusicOnHold(default,1) plays music to it for a second.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 710,1,Answer()
 same => n,Record(dialplan-test.wav,0,2,q)
 same => n,Log(NOTICE,record \${RECORD_STATUS} \${RECORDED_FILE})
 same => n,MusicOnHold(default,1)
 same => n,Hangup()
`;

describe('Record() and MusicOnHold()', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
  });
  after(async () => {
    await sb.stop();
  });

  it('records the caller until the maximum duration, then plays music', { timeout: 40_000 }, async () => {
    const phone = await RtpPeer.open();
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '710', keys: { rtpport: phone.port } });
      const deadline = Date.now() + 10_000;
      while (!sb.logs.some((l) => String(l.msg).startsWith('record ')) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-2000));
      const logged = sb.logs.find((l) => String(l.msg).startsWith('record '));
      assert.equal(logged?.msg, 'record TIMEOUT dialplan-test');
      const file = join(sb.confDir, 'recordings', 'dialplan-test.wav');
      assert.ok(existsSync(file) && statSync(file).size > 44, 'a WAV file with audio frames');
      const music = phone.packets.filter((p) => p.payloadType === 0).length;
      assert.ok(music > 20, `music reached the caller (${music} packets)`);
    } finally {
      phone.close();
    }
  });
});
