/**
 * What an operator uses, against the real process: the `switchboard` command's remote console
 * over the control socket (-rx and -r), the console commands during and after a real sipp call,
 * the per-call verbose lines, the security log in fail2ban's format, /metrics after the call,
 * /healthz and /readyz.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, REPO_ROOT, type RunningSwitchboard, runSipp, startSwitchboard, switchboardCli } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';
import { RtpReceiver } from './rtp-receiver.js';

const DIALPLAN = `
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
exten => 300,1,Answer()
 same => n,Wait(20)
 same => n,Hangup()
`;

/** fail2ban's stock `asterisk` filter, the PJSIP and SecurityEvent lines, with its prefix expanded. */
const FAIL2BAN_PREFIX = String.raw`^\[[\d-]+ [\d:]+\] (?:NOTICE|SECURITY|WARNING)(?:\[\d+\])?:?(?:\[C-[\da-f]*\])? [^:]+:\d*(?:(?: in)? \w+:)?`;
const FAIL2BAN_RULES = [
  new RegExp(
    `${FAIL2BAN_PREFIX} Request (?:'[^']*' )?from '(?:[^']*|.*?)' failed for '(?<host>[\\d.:a-f\\[\\]]+?)(?::\\d+)?'\\s\\(callid: [^\\)]*\\) - (?:No matching endpoint found|Not match Endpoint(?: Contact)? ACL|(?:Failed|Error) to authenticate)\\s*$`,
  ),
  new RegExp(
    `${FAIL2BAN_PREFIX} SecurityEvent="(?:FailedACL|InvalidAccountID|ChallengeResponseFailed|InvalidPassword)"(?:(?:,(?!RemoteAddress=)\\w+="[^"]*")*|.*?),RemoteAddress="IPV[46]/[^/"]+/(?<host>[^/"]+)/\\d+"(?:,(?!RemoteAddress=)\\w+="[^"]*")*$`,
  ),
];

const rx = async (sb: RunningSwitchboard, command: string) => {
  const result = await switchboardCli(sb, ['-rx', command]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
};

async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail('condition not met in time');
}

describe('operating the server', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    const sipPort = await freePort('udp');
    sb = await startSwitchboard({
      sipPort,
      dialplan: DIALPLAN,
      extraFiles: {
        'pjsip.conf': `${udpTransport(sipPort)}\n[local-phone]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\n\n[local-phone]\ntype = identify\nendpoint = local-phone\nmatch = 127.0.0.1\n${digestPhone('alice', 'wonderland')}`,
        'logger.conf':
          '[general]\nrotatestrategy = rotate\n\n[logfiles]\nconsole => notice,warning,error,verbose\nsecurity => security\nmessages => notice,warning,error\n',
        'prometheus.conf': '[general]\nenabled = yes\nuri = metrics\nauth_username = scraper\nauth_password = scrape-pass\n',
      },
    });
  });
  after(async () => {
    await sb?.stop();
  });

  it('prints its version and usage without a server', async () => {
    const version = await switchboardCli(sb, ['--version']);
    assert.match(version.stdout, /^Switchboard \d+\.\d+\.\d+\n$/);
    const help = await switchboardCli(sb, ['--help']);
    assert.match(help.stdout, /switchboard -rx "<command>"/);
    const bad = await switchboardCli(sb, ['--bogus']);
    assert.equal(bad.code, 2);
  });

  it('listens on a control socket only its own user may open', () => {
    const path = join(sb.dataDir, 'switchboard.ctl');
    const stat = statSync(path);
    assert.ok(stat.isSocket());
    assert.equal(stat.mode & 0o777, 0o600);
  });

  it('runs console commands with -rx, as the original names and prints them', async () => {
    assert.match(await rx(sb, 'core show version'), /^Switchboard \d+\.\d+\.\d+ on /);
    assert.match(await rx(sb, 'core show uptime'), /System uptime: .*\nLast reload: /);
    assert.match(await rx(sb, 'core show settings'), /System name:\s+e2e/);
    const endpoints = await rx(sb, 'pjsip show endpoints');
    assert.match(endpoints, /^Endpoint\/CID\s+State\s+Channels/);
    assert.match(endpoints, /\nalice\s+Unavailable\s+0\s+alice\s+0\s+alice-auth\s+from-internal/);
    assert.match(await rx(sb, 'pjsip show endpoint alice'), /context:\s+from-internal/);
    assert.match(await rx(sb, 'pjsip show endpoint nobody'), /Unable to find object nobody/);
    assert.match(await rx(sb, 'pjsip show transports'), /transport-udp\s+udp\s+127\.0\.0\.1:\d+/);
    assert.match(await rx(sb, 'pjsip show registrations'), /No objects found/);
    assert.match(await rx(sb, 'dialplan show from-internal'), /'300' =>\s+1\.\s+Answer\(\)/);
    assert.match(await rx(sb, 'dialplan show'), /-= 2 extensions \(6 priorities\) in 1 context\. =-/);
    assert.match(await rx(sb, 'dialplan reload'), /Dialplan reloaded/);
    assert.match(await rx(sb, 'module reload pbx_config'), /reloaded successfully/);
    assert.match(await rx(sb, 'module reload nothing'), /could not be reloaded/);
    assert.match(await rx(sb, 'logger reload'), /security\s+File\s+Enabled\s+SECURITY/);
    assert.match(await rx(sb, 'bridge show all'), /0 active bridges/);
    assert.match(await rx(sb, 'cdr show 5'), /No call detail records|Start\s+Src/);
    assert.match(await rx(sb, 'core set verbose x'), /Usage: core set verbose <level>/);
    // The office features with nothing configured (their own tests show them populated).
    assert.match(await rx(sb, 'queue show'), /^No queues\./);
    assert.match(await rx(sb, 'confbridge list'), /^Conference Bridge Name\s+Users\s+Marked\s+Locked\s+Muted\n?$/);
    assert.match(await rx(sb, 'voicemail show users'), /^There are no voicemail users currently defined/);
    assert.match(await rx(sb, 'agent show'), /^No such command 'agent show'/);
    const help = await rx(sb, 'core show help pjsip');
    assert.match(help, /pjsip set logger on\|off\|host <ip>/);
  });

  it('completes command words and arguments over the socket', async () => {
    const socket = connect(join(sb.dataDir, 'switchboard.ctl'));
    const replies: unknown[] = [];
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) replies.push(JSON.parse(line));
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`${JSON.stringify({ id: 1, type: 'complete', line: 'pjsip show e' })}\n`);
    socket.write(`${JSON.stringify({ id: 2, type: 'complete', line: 'pjsip show endpoint a' })}\n`);
    socket.write(`${JSON.stringify({ id: 3, type: 'complete', line: 'core show channels ' })}\n`);
    await waitFor(() => replies.length === 3);
    socket.end();
    assert.deepEqual(replies, [
      { id: 1, type: 'completions', list: ['pjsip show endpoint', 'pjsip show endpoints'] },
      { id: 2, type: 'completions', list: ['pjsip show endpoint alice'] },
      { id: 3, type: 'completions', list: ['core show channels concise', 'core show channels verbose'] },
    ]);
  });

  it('takes commands interactively with -r and ends on quit', async () => {
    const session = await switchboardCli(sb, ['-r'], 'core show calls\nquit\n');
    assert.equal(session.code, 0, session.stderr);
    assert.match(session.stdout, /Connected to Switchboard/);
    assert.match(session.stdout, /0 active calls/);
  });

  it('shows a live call, its verbose lines, hangs it up, and counts it in /metrics', { timeout: 60_000 }, async () => {
    assert.match(await rx(sb, 'core set verbose 3'), /Verbosity was 0 and is now 3/);
    assert.equal(await rx(sb, 'pjsip set logger on'), 'PJSIP Logging enabled\n');
    const rtp = await RtpReceiver.open();
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '300', keys: { rtpport: rtp.port } });
      await waitFor(async () => /Wait\(20\)/.test(await rx(sb, 'core show channels')));
      const channels = await rx(sb, 'core show channels');
      assert.match(
        channels,
        /^Channel\s+Location\s+State\s+Application\(Data\)\nSIP\/local-phone-\S+\s+300@from-internal:2\s+Up\s+Wait\(20\)\n1 active channel\n1 active call\n1 call processed\n$/,
      );
      const concise = (await rx(sb, 'core show channels concise')).trim().split('!');
      assert.deepEqual(concise.slice(1, 6), ['from-internal', '300', '2', 'Up', 'Wait']);
      assert.match(await rx(sb, 'core show channels verbose'), /BridgeID\n.*from-internal\s+300\s+2\s+Up\s+Wait\s+20/);
      assert.match(await rx(sb, 'channel request hangup all'), /Requested Hangup on channel 'SIP\/local-phone-/);
      const sipp = await call;
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    } finally {
      rtp.close();
    }
    await waitFor(async () => /0 active channels/.test(await rx(sb, 'core show channels')));
    await rx(sb, 'pjsip set logger off');

    const messages = sb.logs.map((l) => String(l.msg));
    assert.ok(
      messages.some((m) => /^Executing \[300@from-internal:1\] Answer\("SIP\/local-phone-[^"]+"\) in new stack$/.test(m)),
      'Executing line',
    );
    assert.ok(messages.some((m) => /^Executing \[300@from-internal:2\] Wait\("SIP\/local-phone-[^"]+", "20"\) in new stack$/.test(m)));
    assert.ok(messages.some((m) => /^SIP\/local-phone-\S+ answered$/.test(m)));
    assert.ok(messages.some((m) => /^SIP\/local-phone-\S+ hung up: Normal Clearing \(16\)$/.test(m)));
    assert.ok(
      messages.some((m) => /^<--- Received SIP request \(\d+ bytes\) from UDP:127\.0\.0\.1:\d+ --->\nINVITE sip:300@/.test(m)),
      'SIP trace',
    );
    assert.ok(messages.some((m) => /^<--- Transmitting SIP request \(\d+ bytes\) to UDP:127\.0\.0\.1:\d+ --->\nBYE /.test(m)));

    // A method nobody defined is counted as OTHER: a peer must not be able to add label values.
    const stranger = createSocket('udp4');
    await new Promise<void>((resolve) => stranger.bind(0, '127.0.0.1', () => resolve()));
    const strangerPort = stranger.address().port;
    const frob = [
      'FROBNICATE sip:300@127.0.0.1 SIP/2.0',
      `Via: SIP/2.0/UDP 127.0.0.1:${strangerPort};branch=z9hG4bKfrob1;rport`,
      'Max-Forwards: 70',
      'From: <sip:stranger@127.0.0.1>;tag=frob',
      'To: <sip:300@127.0.0.1>',
      'Call-ID: frob-1@127.0.0.1',
      'CSeq: 1 FROBNICATE',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n');
    const answered = new Promise<string>((resolve) => stranger.once('message', (data) => resolve(data.toString('latin1'))));
    stranger.send(frob, sb.sipPort, '127.0.0.1');
    assert.match(await answered, /^SIP\/2\.0 (405|501) /);
    stranger.close();

    // Three API requests, each counted once (a route of the API is in the root's scope too).
    for (let i = 0; i < 3; i++) {
      const ping = await fetch(`${sb.baseUrl}/ari/asterisk/ping`, { headers: { authorization: basicAuth() } });
      assert.equal(ping.status, 200);
      await ping.arrayBuffer();
    }
    const unauthorised = await fetch(`${sb.baseUrl}/metrics`);
    assert.equal(unauthorised.status, 401);
    const scrape = await fetch(`${sb.baseUrl}/metrics`, {
      headers: { Authorization: `Basic ${Buffer.from('scraper:scrape-pass').toString('base64')}` },
    });
    assert.equal(scrape.status, 200);
    assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    assert.equal(value(/^switchboard_call_attempts_total\{direction="inbound"\} (\d+)$/m), 1);
    assert.equal(value(/^switchboard_call_answers_total\{direction="inbound"\} (\d+)$/m), 1);
    assert.equal(value(/^switchboard_call_setup_seconds_count\{direction="inbound"\} (\d+)$/m), 1);
    assert.ok(value(/^switchboard_sip_requests_total\{method="INVITE",direction="received"\} (\d+)$/m) >= 1);
    assert.ok(value(/^switchboard_sip_requests_total\{method="BYE",direction="sent"\} (\d+)$/m) >= 1);
    assert.ok(value(/^switchboard_sip_responses_total\{status="200",direction="sent"\} (\d+)$/m) >= 1);
    assert.equal(value(/^switchboard_sip_requests_total\{method="OTHER",direction="received"\} (\d+)$/m), 1);
    assert.doesNotMatch(text, /method="FROBNICATE"/);
    assert.match(text, /^switchboard_sip_transactions\{kind="server"\} \d+$/m);
    assert.match(text, /^switchboard_sip_retransmissions_total\{direction="sent"\} \d+$/m);
    assert.match(text, /^switchboard_sip_datagrams_dropped_total\{reason="inbound_queue"\} 0$/m);
    assert.match(text, /^switchboard_sip_datagrams_dropped_total\{reason="receive_buffer"\} 0$/m);
    assert.match(text, /^switchboard_calls\{state="up"\} 0$/m);
    assert.match(text, /^switchboard_media_tick_p99_seconds\{worker="0"\} [\d.e-]+$/m);
    const workerHeap = /^switchboard_media_worker_heap_used_bytes\{worker="0"\} (\d+)$/m.exec(text);
    assert.ok(Number(workerHeap?.[1]) > 1_000_000, `the media worker's heap in use: ${workerHeap?.[0]}`);
    assert.match(text, /^switchboard_events_websocket_connections 0$/m);
    assert.match(text, /^switchboard_store_operation_seconds_count\{repository="contacts",operation="all"\} \d+$/m);
    assert.match(text, /^nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);
    // Every metric served is documented in the README's table.
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const served = [...text.matchAll(/^# HELP (switchboard_\w+|nodejs_eventloop_lag_\w+) /gm)].map((m) => m[1] as string);
    assert.ok(served.length > 20);
    for (const name of served)
      assert.ok(
        readme.includes(`\`${name.replace(/_(p50|p90|p99|min|max|mean|stddev)_seconds$/, '_*_seconds')}\``) ||
          readme.includes(`\`${name}\``),
        `${name} is not documented in README.md`,
      );
    // HTTP requests by route pattern: the refused scrape above is one.
    assert.match(text, /^switchboard_api_requests_total\{method="GET",route="\/metrics",status="401"\} 1$/m);
    assert.match(text, /^switchboard_api_requests_total\{method="GET",route="\/ari\/asterisk\/ping",status="200"\} 3$/m);
  });

  it('answers /healthz and /readyz without credentials', async () => {
    const health = await fetch(`${sb.baseUrl}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, 'ok');
    const ready = await fetch(`${sb.baseUrl}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready', checks: { transports: true, store: true, media_workers: true } });
  });

  it('writes failed authentications to the security log in the format fail2ban reads', { timeout: 30_000 }, async () => {
    for (const [user, password] of [
      ['alice', 'wrong'],
      ['mallory', 'x'],
    ] as const) {
      const sipp = await runSipp(
        'register-wrong-password.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        // From 127.0.0.2: 127.0.0.1 is identified as local-phone by address and never challenged.
        { service: user, keys: { expires: 300 }, extra: ['-au', user, '-ap', password, '-i', '127.0.0.2'] },
      );
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    }
    const file = join(sb.dataDir, 'log', 'security');
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('mallory'));
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    for (const line of lines) {
      const host = FAIL2BAN_RULES.map((rule) => rule.exec(line)?.groups?.host).find((h) => h !== undefined);
      assert.equal(host, '127.0.0.2', `fail2ban would not ban from: ${line}`);
    }
    assert.ok(lines.some((l) => l.includes("from '<sip:alice@127.0.0.2>'") && l.endsWith('- Failed to authenticate')));
    assert.ok(lines.some((l) => l.includes("from '<sip:mallory@127.0.0.2>'") && l.endsWith('- No matching endpoint found')));
  });

  it('rotates the log files by logger.conf rotatestrategy', async () => {
    assert.match(await rx(sb, 'logger rotate'), /Log files rotated \(rotate\)/);
    assert.ok(existsSync(join(sb.dataDir, 'log', 'security.1')));
    assert.ok(existsSync(join(sb.dataDir, 'log', 'messages.1')));
  });

  it('stops on core stop now', { timeout: 15_000 }, async () => {
    assert.match(await rx(sb, 'core stop now'), /Shutting down now/);
    const code = await new Promise<number | null>((resolve) => {
      if (sb.process.exitCode !== null) resolve(sb.process.exitCode);
      else sb.process.once('exit', (c) => resolve(c));
    });
    assert.equal(code, 0);
    const refused = await switchboardCli(sb, ['-rx', 'core show uptime']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Unable to connect to remote switchboard/);
  });
});

describe('core stop gracefully', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
  });
  after(async () => {
    await sb?.stop();
  });

  it('refuses new calls, waits for the last call to end, then exits 0', { timeout: 60_000 }, async () => {
    const rtp = await RtpReceiver.open();
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '300', keys: { rtpport: rtp.port } });
      await waitFor(async () => /1 active channel\n/.test(await rx(sb, 'core show channels')));
      assert.match(await rx(sb, 'core stop gracefully'), /Shutting down once no call is left \(1 channel up\)/);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(sb.process.exitCode, null, 'still running while the call lasts');
      assert.match(await rx(sb, 'core show calls'), /^1 active call\n/);
      // As in the original: no new call is accepted while stopping gracefully.
      const refused = await runSipp(
        'uac-refused-503.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '300', keys: { rtpport: rtp.port } },
      );
      assert.equal(refused.code, 0, refused.stdout.slice(-2000) + refused.stderr.slice(-2000));
      await rx(sb, 'channel request hangup all');
      const sipp = await call;
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    } finally {
      rtp.close();
    }
    const code = await new Promise<number | null>((resolve) => {
      if (sb.process.exitCode !== null) resolve(sb.process.exitCode);
      else sb.process.once('exit', (c) => resolve(c));
    });
    assert.equal(code, 0);
  });
});
