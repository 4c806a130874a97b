/**
 * A phone behind a real NAT (nat-namespace.ts: a network namespace, a veth pair and nftables
 * masquerading to other ports) registers and calls, with the NAT options a remote phone gets
 * (force_rport, rewrite_contact, rtp_symmetric). Its REGISTER, INVITE and SDP name its private
 * address, which the server cannot reach: everything it sends must go to the NAT's mappings.
 *
 * - it registers (digest) and its call to an IVR is answered; the digit it sends as RFC 4733 from
 *   behind the NAT reaches Read(), and the server's BYE comes back through the NAT;
 * - a call to it (originated through the API) reaches it through the mapping its registration
 *   made, and the server's audio goes to the NAT's port for its media (seen by a capture inside
 *   the namespace: datagrams from the server's media to a port the NAT chose).
 *
 * Where the machine does not allow network namespaces (no root, no `ip netns`, no nftables) the
 * tests skip and say why; nat-addresses.test.ts still covers the rewritten-address variant.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { NAT_OUTER_ADDRESS, NAT_PORTS, type NatNamespace, openNatNamespace, PHONE_ADDRESS, SERVER_ADDRESS } from './nat-namespace.js';
import { digestPhone, NAT_PHONE } from './pjsip-phones.js';

const DIALPLAN = `
exten => 701,1,Answer()
 same => n,Read(DIGIT,,1,,,4)
 same => n,Log(NOTICE,digit from behind the NAT \${DIGIT})
 same => n,Hangup()
exten => 702,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
`;

/** The phone's own ports, inside the namespace (the NAT maps them elsewhere). */
const PHONE_SIP_PORT = 5062;
const PHONE_MEDIA_PORT = 6000;

const namespace = openNatNamespace();
const skip = typeof namespace === 'string' ? `no NAT namespace: ${namespace}` : undefined;

describe('NAT: a phone in a network namespace behind nftables masquerading', { skip }, () => {
  let sb: RunningSwitchboard;
  let ns: NatNamespace;

  before(async () => {
    if (typeof namespace === 'string') return;
    ns = namespace;
    const sipPort = await freePort('udp');
    const pjsip = [
      `[transport-udp]\ntype = transport\nprotocol = udp\nbind = ${SERVER_ADDRESS}:${sipPort}\n`,
      digestPhone('roamer', 'far-away', { ...NAT_PHONE, endpoint: [...(NAT_PHONE.endpoint ?? []), 'rtp_symmetric = yes'] }),
    ].join('\n');
    sb = await startSwitchboard({ sipPort, dialplan: DIALPLAN, extraFiles: { 'pjsip.conf': pjsip } });
  });
  after(async () => {
    await sb?.stop();
    if (typeof namespace !== 'string') namespace.close();
  });

  const phone = (scenario: string, service: string, extra: string[] = []) =>
    runSipp(
      scenario,
      { host: SERVER_ADDRESS, port: sb.sipPort },
      {
        service,
        namespace: ns.name,
        keys: { expires: 300, user: 'roamer' },
        extra: [
          '-i',
          PHONE_ADDRESS,
          '-p',
          String(PHONE_SIP_PORT),
          '-mp',
          String(PHONE_MEDIA_PORT),
          '-au',
          'roamer',
          '-ap',
          'far-away',
          ...extra,
        ],
        timeoutSeconds: 15,
      },
    );

  it('registers through the NAT and its call carries its digit to Read() and gets the BYE back', { timeout: 30_000 }, async () => {
    const registered = await phone('register-auth.xml', 'roamer');
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const added = sb.logs.find((l) => l.msg === 'contact added' && l.aor === 'roamer');
    assert.ok(added, 'the registration was stored');
    const [address, port] = String(added.received).split(':');
    assert.equal(address, NAT_OUTER_ADDRESS, `received from the NAT's outer address (${String(added.received)}), not ${PHONE_ADDRESS}`);
    assert.ok(Number(port) >= NAT_PORTS.first && Number(port) <= NAT_PORTS.last, `from a port the NAT chose (${port})`);

    const call = await phone('uac-auth-pcap-bye.xml', '701');
    assert.equal(call.code, 0, call.stdout.slice(-2000));
    assert.ok(
      sb.logs.some((l) => l.msg === 'digit from behind the NAT 1'),
      'the RFC 4733 digit sent from behind the NAT reached Read()',
    );
  });

  it('reaches the phone through its registration and sends its audio to the NAT mapping', { timeout: 30_000 }, async (t) => {
    if (spawnSync('sh', ['-c', 'command -v tshark'], { stdio: 'ignore' }).status !== 0) {
      t.skip('tshark is not installed: apt-get install tshark');
      return;
    }
    const registered = await phone('register-auth.xml', 'roamer');
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));

    // What arrives at the NAT's outer side from the server, other than SIP.
    let capture: ChildProcess | undefined;
    let tsharkErr = '';
    let tsharkOut = '';
    try {
      capture = spawn(
        'ip',
        [
          'netns',
          'exec',
          ns.name,
          'tshark',
          '-i',
          'any',
          '-f',
          `udp and src host ${SERVER_ADDRESS} and not src port ${sb.sipPort}`,
          '-a',
          'duration:12',
          '-c',
          '40',
          '-T',
          'fields',
          '-e',
          'udp.dstport',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      capture.stdout?.on('data', (chunk: Buffer) => {
        tsharkOut += chunk.toString();
      });
      capture.stderr?.on('data', (chunk: Buffer) => {
        tsharkErr += chunk.toString();
      });
      for (let i = 0; i < 100 && !tsharkErr.includes('Capturing on'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(tsharkErr.includes('Capturing on'), `tshark started: ${tsharkErr}`);

      const answering = phone('uas-answer-pcap-bye.xml', 'roamer');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const originated = await fetch(`${sb.baseUrl}/ari/channels?endpoint=SIP/roamer&extension=702&context=from-internal&priority=1`, {
        method: 'POST',
        headers: { authorization: basicAuth() },
      });
      assert.equal(originated.status, 200, await originated.text());
      const answered = await answering;
      assert.equal(answered.code, 0, answered.stdout.slice(-2000));
      await new Promise<void>((resolve) => {
        if (capture?.exitCode !== null) resolve();
        else capture.once('exit', () => resolve());
      });
    } finally {
      if (capture !== undefined && capture.exitCode === null) capture.kill('SIGTERM');
    }
    const ports = tsharkOut
      .split('\n')
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((port) => Number.isFinite(port));
    const mapped = ports.filter((port) => port >= NAT_PORTS.first && port <= NAT_PORTS.last);
    assert.ok(
      mapped.length >= 20,
      `the server's audio went to the NAT's port for the phone's media (${ports.length} datagrams, ${mapped.length} to a mapped port)`,
    );
  });
});
