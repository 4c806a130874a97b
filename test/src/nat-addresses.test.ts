/**
 * NAT options of pjsip.conf against the real process, with the addresses a NAT would show:
 * the transport advertises external_signaling_address:external_signaling_port and external_media_address to callers
 * outside local_net (here 127.0.0.1), and its own address to callers inside (127.0.0.2), as an
 * office PBX behind a router does for remote and local phones. Loopback stands in for both
 * networks (no network namespace is needed to see which address each caller is shown).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

describe('NAT: external addresses and local_net', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    sb = await startSwitchboard({ dialplan: 'exten => 600,1,Answer()\n same => n,Wait(0.5)\n same => n,Hangup()\n' });
    // The harness's transport section gains the NAT options; identify covers both callers.
    const path = join(sb.confDir, 'pjsip.conf');
    const text = readFileSync(path, 'utf8')
      .replace(
        'type = transport\n',
        'type = transport\nexternal_signaling_address = 203.0.113.10\nexternal_signaling_port = 5099\nexternal_media_address = 203.0.113.20\nlocal_net = 127.0.0.2/32\n',
      )
      .replace('match = 127.0.0.1\n', 'match = 127.0.0.0/8\n');
    writeFileSync(path, text);
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('shows a caller outside local_net the external addresses', { timeout: 30_000 }, async () => {
    const sipp = await runSipp(
      'uac-nat-external.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: '600',
        keys: { rtpport: 4500 },
      },
    );
    assert.equal(sipp.code, 0, sipp.stdout.slice(-3000));
  });

  it('shows a caller inside local_net the server’s own addresses', { timeout: 30_000 }, async () => {
    const sipp = await runSipp(
      'uac-nat-local.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: '600',
        keys: { rtpport: 4502 },
        extra: ['-i', '127.0.0.2'],
      },
    );
    assert.equal(sipp.code, 0, sipp.stdout.slice(-3000));
  });
});

describe("NAT: an endpoint's media_address in answers", () => {
  let sb: RunningSwitchboard;

  before(async () => {
    sb = await startSwitchboard({
      dialplan: 'exten => 600,1,Answer()\n same => n,Wait(0.5)\n same => n,Hangup()\n',
      endpointLines: ['media_address = 198.51.100.7'],
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('names media_address in the SDP of the 200 OK to a call from the endpoint', { timeout: 30_000 }, async () => {
    const sipp = await runSipp(
      'uac-media-address.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: '600', keys: { rtpport: 4504 } },
    );
    assert.equal(sipp.code, 0, sipp.stdout.slice(-3000));
  });
});
