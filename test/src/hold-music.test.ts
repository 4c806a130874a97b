/**
 * Music on hold for a Dial() call against the real process: the caller (sipp) puts the call on
 * hold twice with re-INVITEs; the callee's media (an RtpPeer behind a sipp UAS) must hear music
 * (non-silent audio) while it is held, in one RTP stream whose sequence numbers and timestamps
 * run on across hold, resume and hold again.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { rms } from './rtp-receiver.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 400,1,Dial(SIP/held,10)
 same => n,Hangup()
`;

describe('music on hold in a Dial() call', () => {
  let sb: RunningSwitchboard;
  let heldPort = 0;

  before(async () => {
    heldPort = await freePort('udp');
    sb = await startSwitchboard({ dialplan: DIALPLAN, endpointLines: ['moh_suggest = default'] });
    const pjsip = readFileSync(join(sb.confDir, 'pjsip.conf'), 'utf8');
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      `${pjsip}\n[held]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\naors = held\n\n[held]\ntype = aor\ncontact = sip:held@127.0.0.1:${heldPort}\n`,
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('plays music to the held party with continuous sequence numbers and timestamps', { timeout: 60_000 }, async () => {
    const heldMedia = await RtpPeer.open();
    const holderMedia = await RtpPeer.open();
    try {
      const callee = runSipp(
        'uas-answer-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        {
          service: 'held',
          keys: { rtpport: heldMedia.port },
          extra: ['-p', String(heldPort)],
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const caller = await runSipp(
        'uac-hold-resume.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        {
          service: '400',
          keys: { rtpport: holderMedia.port },
        },
      );
      assert.equal(caller.code, 0, caller.stdout.slice(-2000));
      assert.equal((await callee).code, 0);

      const packets = heldMedia.packets.filter((p) => p.payloadType === 0);
      assert.ok(packets.length > 100, `music reached the held party (${packets.length} packets)`);
      assert.ok(rms(packets.map((p) => p.payload)) > 200, 'the music is not silence');
      assert.equal(new Set(packets.map((p) => p.ssrc)).size, 1, 'one RTP stream');
      // Two holds: the packets fall into two runs with a pause between them.
      let pauses = 0;
      for (let i = 1; i < packets.length; i++) {
        const seqStep = (packets[i].sequence - packets[i - 1].sequence + 0x10000) % 0x10000;
        const tsStep = (packets[i].timestamp - packets[i - 1].timestamp + 2 ** 32) % 2 ** 32;
        assert.equal(seqStep, 1, `sequence runs on at packet ${i}`);
        assert.ok(tsStep >= 160 && tsStep < 8000 * 10, `timestamp runs on at packet ${i} (step ${tsStep})`);
        if (packets[i].at - packets[i - 1].at > 500) pauses += 1;
      }
      assert.equal(pauses, 1, 'the music stops on resume and starts again on the second hold');
    } finally {
      heldMedia.close();
      holderMedia.close();
    }
  });
});
