/**
 * The manager interface end to end: the real server with manager.conf enabled, a raw TCP client
 * that sees the wire as it is, the npm `asterisk-manager` client unchanged, sipp phones and an
 * ari-client application for the REST side.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent } from 'ari-client';
import Manager, { type AmiMessage as NpmAmiMessage, type AsteriskManager } from 'asterisk-manager';
import { type AmiMessage, RawAmi } from './ami-raw.js';
import { API_PASSWORD, API_USER, basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DIALPLAN = `
exten => 100,1,NoOp(application demo)
 same => n,App(demo,from-sip)
 same => n,Hangup()
exten => 300,1,Answer()
 same => n,Wait(20)
 same => n,Hangup()
exten => 301,1,NoOp(redirected)
 same => n,Set(REDIRECTED=yes)
 same => n,Wait(1)
 same => n,Hangup()
exten => 400,1,Answer()
 same => n,Set(ORIGINATED=yes)
 same => n,Wait(1)
 same => n,Hangup()
`;

function managerConf(port: number): string {
  return `[general]
enabled = yes
port = ${port}
bindaddr = 127.0.0.1
actionlimit = 10000

[admin]
secret = admin-secret
read = all
write = all

[monitor]
secret = monitor-secret
read = call,user
write = call,reporting

[blocked]
secret = blocked-secret
deny = 0.0.0.0/0.0.0.0
permit = 10.0.0.0/255.0.0.0
read = all
write = all

[slow]
secret = slow-secret
read = user
write = user
writetimeout = 100
`;
}

/** Connects the npm client and resolves once it has logged in. */
async function npmClient(port: number, user: string, secret: string): Promise<{ ami: AsteriskManager; events: NpmAmiMessage[] }> {
  const ami = Manager(port, '127.0.0.1', user, secret, true);
  const events: NpmAmiMessage[] = [];
  ami.on('managerevent', (event: NpmAmiMessage) => events.push(event));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('npm client did not log in')), 5000);
    ami.action({ action: 'Ping' }, (err) => {
      clearTimeout(timer);
      if (err) reject(new Error(`Ping failed: ${JSON.stringify(err)}`));
      else resolve();
    });
  });
  return { ami, events };
}

function npmAction(ami: AsteriskManager, action: Record<string, string | number>): Promise<NpmAmiMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${action.action}`)), 15000);
    ami.action(action, (err, res) => {
      clearTimeout(timer);
      if (err) reject(new Error(JSON.stringify(err)));
      else resolve(res);
    });
  });
}

async function waitUntil<T>(find: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('manager interface', () => {
  let sb: RunningSwitchboard;
  let port: number;
  /** The UDP port of the `desk` endpoint's static contact, which PJSIPQualify pings. */
  let deskPort: number;
  const open: RawAmi[] = [];

  async function raw(): Promise<RawAmi> {
    const client = await RawAmi.connect(port);
    open.push(client);
    return client;
  }

  before(async () => {
    port = await freePort('tcp');
    deskPort = await freePort('udp');
    sb = await startSwitchboard({
      dialplan: DIALPLAN,
      extraFiles: { 'manager.conf': managerConf(port) },
      // A second endpoint with a static contact and no periodic qualify, for PJSIPQualify.
      endpointLines: [
        '',
        '[desk]',
        'type = endpoint',
        'context = from-internal',
        'disallow = all',
        'allow = ulaw',
        'aors = desk',
        '',
        '[desk]',
        'type = aor',
        `contact = sip:desk@127.0.0.1:${deskPort}`,
      ],
    });
  });

  after(async () => {
    for (const client of open) client.close();
    await sb.stop();
  });

  it('greets with the banner and logs in with a plain secret and with an MD5 challenge', async () => {
    const plain = await raw();
    assert.equal(plain.banner, 'Asterisk Call Manager/5.0.0');
    const reply = await plain.login('admin', 'admin-secret');
    assert.equal(reply.get('Response'), 'Success');
    assert.equal(reply.get('Message'), 'Authentication accepted');
    const booted = await plain.waitFor((m) => m.get('Event') === 'FullyBooted', 5000, 'FullyBooted');
    assert.equal(booted.get('Status'), 'Fully Booted');
    assert.equal(booted.get('Privilege'), 'system,all');
    const ping = await plain.action([['Action', 'Ping']]);
    assert.equal(ping.get('Ping'), 'Pong');

    const md5 = await raw();
    const accepted = await md5.loginMd5('monitor', 'monitor-secret');
    assert.equal(accepted.get('Response'), 'Success');
    const status = await md5.action([['Action', 'CoreStatus']]);
    assert.equal(status.get('Response'), 'Success');
    assert.match(status.get('CoreCurrentCalls') ?? '', /^\d+$/);
  });

  it('counts its connections, logins and actions in /metrics', async () => {
    const client = await raw();
    await client.login('admin', 'admin-secret');
    await client.action([['Action', 'Ping']]);
    const response = await fetch(`${sb.baseUrl}/metrics`, { headers: { authorization: basicAuth(API_USER, API_PASSWORD) } });
    assert.equal(response.status, 200);
    const text = await response.text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    assert.ok(value(/^switchboard_manager_connections_total (\d+)$/m) >= 1);
    assert.ok(value(/^switchboard_manager_logins_total (\d+)$/m) >= 1);
    assert.ok(value(/^switchboard_manager_actions_total\{action="ping"\} (\d+)$/m) >= 1);
    assert.ok(value(/^switchboard_manager_sessions\{authenticated="yes"\} (\d+)$/m) >= 1);
  });

  it('refuses a wrong secret, an unknown user, a bad MD5 key and an ACL; security events tell the admin', async () => {
    const admin = await raw();
    await admin.login('admin', 'admin-secret');
    const tries: [string, (c: RawAmi) => Promise<AmiMessage>][] = [
      ['InvalidPassword', (c) => c.login('admin', 'wrong')],
      ['InvalidAccountID', (c) => c.login('nobody', 'x')],
      ['FailedACL', (c) => c.login('blocked', 'blocked-secret')],
      [
        'ChallengeResponseFailed',
        (c) =>
          c.action([
            ['Action', 'Login'],
            ['AuthType', 'MD5'],
            ['Username', 'admin'],
            ['Key', '0123456789abcdef0123456789abcdef'],
          ]),
      ],
    ];
    for (const [eventName, attempt] of tries) {
      const client = await raw();
      const reply = await attempt(client);
      assert.equal(reply.get('Response'), 'Error', eventName);
      assert.equal(reply.get('Message'), 'Authentication failed');
      await client.waitClosed();
      const event = await admin.waitFor((m) => m.get('Event') === eventName, 5000, eventName);
      assert.equal(event.get('Service'), 'AMI');
      assert.match(event.get('RemoteAddress') ?? '', /^IPV4\/TCP\/127\.0\.0\.1\/\d+$/);
    }
  });

  it('enforces write classes and answers bad input with the original errors', async () => {
    const anonymous = await raw();
    const early = await anonymous.action([['Action', 'Ping']]);
    assert.equal(early.get('Message'), 'Permission denied');

    const monitor = await raw();
    await monitor.login('monitor', 'monitor-secret');
    const originate = await monitor.action([
      ['Action', 'Originate'],
      ['Channel', 'PJSIP/local-phone'],
      ['Exten', '400'],
      ['Context', 'from-internal'],
    ]);
    assert.deepEqual([originate.get('Response'), originate.get('Message')], ['Error', 'Permission denied']);
    const command = await monitor.action([
      ['Action', 'Command'],
      ['Command', 'core show channels'],
    ]);
    assert.equal(command.get('Message'), 'Permission denied');
    const getvar = await monitor.action([
      ['Action', 'Getvar'],
      ['Variable', 'NOT_SET_ANYWHERE'],
    ]);
    assert.deepEqual([getvar.get('Response'), getvar.get('Value')], ['Success', '']);

    const admin = await raw();
    await admin.login('admin', 'admin-secret', 'off');
    admin.writeRaw('ActionID: no-action\r\nFoo: bar\r\n\r\n');
    const missing = await admin.waitFor((m) => m.get('ActionID') === 'no-action', 5000, 'missing action reply');
    assert.equal(missing.get('Message'), 'Missing action in request');
    const unknown = await admin.action([['Action', 'NoSuchThing']]);
    assert.match(unknown.get('Message') ?? '', /^Invalid\/unknown command: NoSuchThing/);
    const noChannel = await admin.action([
      ['Action', 'Originate'],
      ['Exten', '400'],
    ]);
    assert.equal(noChannel.get('Message'), 'Channel not specified');
    const hangup = await admin.action([
      ['Action', 'Hangup'],
      ['Channel', 'SIP/nobody-0000'],
    ]);
    assert.equal(hangup.get('Message'), 'No such channel');
    const db = await admin.action([
      ['Action', 'DBPut'],
      ['Family', 'cidname'],
      ['Key', '5551234'],
      ['Val', 'Alice'],
    ]);
    assert.equal(db.get('Message'), 'Updated database successfully');
    await admin.action([
      ['Action', 'DBGet'],
      ['Family', 'cidname'],
      ['Key', '5551234'],
    ]);
    const value = await admin.waitFor((m) => m.get('Event') === 'DBGetResponse', 5000, 'DBGetResponse');
    assert.equal(value.get('Val'), 'Alice');

    admin.writeRaw(`Action: Ping\r\nX-Long: ${'x'.repeat(5000)}\r\n\r\n`);
    const tooLong = await admin.waitFor((m) => m.get('Message') === 'Line too long', 5000, 'Line too long');
    assert.equal(tooLong.get('Response'), 'Error');
    await admin.waitClosed();
  });

  it('originates a call to a sipp phone and reports its whole life in order to the npm client', { timeout: 60_000 }, async () => {
    const { ami, events } = await npmClient(port, 'admin', 'admin-secret');
    try {
      const phonePort = await freePort('udp');
      const rtpPort = await freePort('udp');
      const phone = runSipp(
        'uas-answer-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        {
          service: 'bob',
          keys: { rtpport: rtpPort },
          extra: ['-p', String(phonePort)],
        },
      );
      await sleep(500);
      const reply = await npmAction(ami, {
        action: 'Originate',
        channel: `PJSIP/local-phone/sip:bob@127.0.0.1:${phonePort}`,
        exten: '400',
        context: 'from-internal',
        priority: 1,
        callerid: 'Manager <555>',
        channelid: 'ami-originated-1',
        async: 'true',
      });
      assert.equal(reply.message, 'Originate successfully queued');
      const sipp = await phone;
      assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
      await waitUntil(() => events.find((e) => e.event === 'Hangup' && e.uniqueid === 'ami-originated-1'), 'Hangup');
      const mine = events.filter((e) => e.uniqueid === 'ami-originated-1' || e.destuniqueid === 'ami-originated-1');
      const names = mine.map((e) => (e.event === 'Newexten' ? `Newexten:${e.application}` : String(e.event)));
      const order = ['Newchannel', 'DialBegin', 'DialEnd', 'Newexten:Answer', 'Newexten:Wait', 'Newexten:Hangup', 'Hangup'];
      let at = -1;
      for (const name of order) {
        const index = names.indexOf(name, at + 1);
        assert.ok(index > at, `${name} after position ${at} in ${names.join(',')}`);
        at = index;
      }
      assert.ok(names.indexOf('Newstate') < names.indexOf('DialEnd'), `ringing/up before DialEnd: ${names.join(',')}`);
      const dialEnd = mine.find((e) => e.event === 'DialEnd');
      assert.equal(dialEnd?.dialstatus, 'ANSWER');
      // The npm client turns a `Variable:` header into an object keyed by the text before `=`.
      const varset = mine.find((e) => e.event === 'VarSet' && typeof e.variable === 'object' && 'ORIGINATED' in e.variable);
      assert.equal(varset?.value, 'yes');
      const hangup = mine.find((e) => e.event === 'Hangup');
      assert.equal(hangup?.calleridnum, '555');
      assert.equal(hangup?.cause, '16');
      const response = await waitUntil(() => events.find((e) => e.event === 'OriginateResponse'), 'OriginateResponse');
      assert.equal(response.response, 'Success');
      assert.equal(response.uniqueid, 'ami-originated-1');
      assert.equal(response.reason, '4');
      const cdr = await waitUntil(() => events.find((e) => e.event === 'Cdr' && e.uniqueid === 'ami-originated-1'), 'the Cdr');
      assert.equal(cdr.disposition, 'ANSWERED');
      assert.equal(cdr.destination, '400');
      assert.equal(cdr.lastapplication, 'Hangup');
    } finally {
      ami.disconnect();
    }
  });

  it(
    'lists a live call with Command "core show channels", records it with MixMonitor and redirects it to another extension',
    { timeout: 60_000 },
    async () => {
      const admin = await raw();
      await admin.login('admin', 'admin-secret');
      const rtpPort = await freePort('udp');
      const caller = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '300', keys: { rtpport: rtpPort } });
      const waiting = await admin.waitFor(
        (m) => m.get('Event') === 'Newexten' && m.get('Exten') === '300' && m.get('Application') === 'Wait',
        15000,
        'the call waiting in 300',
      );
      const channel = waiting.get('Channel') ?? '';
      const listing = await admin.action([
        ['Action', 'Command'],
        ['Command', 'core show channels'],
      ]);
      assert.equal(listing.get('Message'), 'Command output follows');
      const output = listing.getAll('Output');
      assert.ok(
        output.some((line) => line.startsWith(channel) && line.includes('Wait(20)')),
        output.join('\n'),
      );
      assert.ok(output.includes('1 active channel'), output.join('\n'));
      await admin.action([['Action', 'CoreShowChannels']]);
      const shown = await admin.waitFor((m) => m.get('Event') === 'CoreShowChannel', 5000, 'CoreShowChannel');
      assert.equal(shown.get('Channel'), channel);
      assert.equal(shown.get('Application'), 'Wait');
      const complete = await admin.waitFor((m) => m.get('Event') === 'CoreShowChannelsComplete', 5000, 'CoreShowChannelsComplete');
      assert.equal(complete.get('ListItems'), '1');

      const mix = await admin.action([
        ['Action', 'MixMonitor'],
        ['Channel', channel],
        ['File', 'ami-mix.wav'],
      ]);
      assert.equal(mix.get('MixMonitorID'), 'ami-mix');
      await sleep(300);
      const stopped = await admin.action([
        ['Action', 'StopMixMonitor'],
        ['Channel', channel],
      ]);
      assert.equal(stopped.get('Message'), 'Stopped MixMonitor');
      const stored = await waitUntil(async () => {
        const res = await fetch(`${sb.baseUrl}/ari/recordings/stored/ami-mix`, { headers: { authorization: basicAuth() } });
        return res.status === 200 ? ((await res.json()) as { format: string }) : undefined;
      }, 'the stored recording');
      assert.equal(stored.format, 'wav');

      const redirect = await admin.action([
        ['Action', 'Redirect'],
        ['Channel', channel],
        ['Exten', '301'],
        ['Context', 'from-internal'],
        ['Priority', '1'],
      ]);
      assert.equal(redirect.get('Message'), 'Redirect successful');
      const set = await admin.waitFor(
        (m) => m.get('Event') === 'VarSet' && m.get('Channel') === channel && m.get('Variable') === 'REDIRECTED',
        5000,
        'VarSet REDIRECTED',
      );
      assert.equal(set.get('Value'), 'yes');
      await admin.waitFor((m) => m.get('Event') === 'Hangup' && m.get('Channel') === channel, 10000, 'the hangup');
      const sipp = await caller;
      assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
    },
  );

  it(
    'delivers a user event raised over the REST API with a channel to the npm client, then redirects the channel out of its application',
    { timeout: 60_000 },
    async () => {
      const { ami, events } = await npmClient(port, 'monitor', 'monitor-secret');
      const client: AriClient = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
      await client.start('demo');
      let failure: unknown;
      const onStart = (event: AriEvent, channel: AriChannel) => {
        void (async () => {
          await channel.answer();
          const response = await fetch(`${sb.baseUrl}/ari/events/user/Doorbell?application=demo&source=channel:${channel.id}`, {
            method: 'POST',
            headers: { authorization: basicAuth(), 'content-type': 'application/json' },
            body: JSON.stringify({ variables: { floor: '2' } }),
          });
          assert.equal(response.status, 204);
          await waitUntil(() => events.find((e) => e.event === 'UserEvent'), 'the UserEvent');
          // Redirect takes the channel out of the application (AppEnd) into extension 301, which hangs up.
          const redirected = await npmAction(ami, {
            action: 'Redirect',
            channel: channel.id,
            exten: '301',
            context: 'from-internal',
            priority: 1,
          });
          assert.equal(redirected.message, 'Redirect successful');
        })().catch(async (err: unknown) => {
          failure = err;
          await channel.hangup().catch(() => undefined);
        });
        void event;
      };
      const ended: string[] = [];
      const onEnd = (event: AriEvent) => ended.push((event.channel as { id: string }).id);
      client.on('AppStart', onStart);
      client.on('AppEnd', onEnd);
      try {
        const rtpPort = await freePort('udp');
        const sipp = await runSipp(
          'uac-wait-bye.xml',
          { host: '127.0.0.1', port: sb.sipPort },
          { service: '100', keys: { rtpport: rtpPort } },
        );
        if (failure) throw failure;
        assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
        const userEvent = events.find((e) => e.event === 'UserEvent');
        assert.equal(userEvent?.userevent, 'Doorbell');
        assert.equal(userEvent?.floor, '2');
        assert.match(String(userEvent?.channel), /^SIP\//);
        assert.equal(userEvent?.privilege, 'user,all');
        // monitor reads call and user only: no dialplan events reached it.
        assert.equal(
          events.some((e) => e.event === 'Newexten' || e.event === 'VarSet'),
          false,
        );
        assert.ok(events.some((e) => e.event === 'Newchannel'));
        assert.ok(ended.includes(String(userEvent?.uniqueid)), 'AppEnd after the redirect');
        const hangup = await waitUntil(() => events.find((e) => e.event === 'Hangup' && e.uniqueid === userEvent?.uniqueid), 'the hangup');
        assert.equal(hangup.context, 'from-internal');
        assert.equal(hangup.exten, '301');
      } finally {
        client.removeListener('AppEnd', onEnd);
        client.removeListener('AppStart', onStart);
        client.stop();
        ami.disconnect();
      }
    },
  );

  it('drops a client that does not read after its writetimeout, and keeps serving the others', { timeout: 60_000 }, async () => {
    const slow = await raw();
    await slow.login('slow', 'slow-secret');
    slow.socket.pause();
    const sender = await raw();
    await sender.login('admin', 'admin-secret', 'off');
    const bigHeaders: [string, string][] = Array.from({ length: 100 }, (_, i) => [`X-Data-${i}`, 'y'.repeat(1000)]);
    let sent = 0;
    // Each UserEvent reaches the slow reader as ~100 KB; 400 of them are far more than socket buffers hold.
    const dropped = () => sb.logs.some((l) => l.msg === 'manager session closed' && l.user === 'slow');
    while (!dropped() && sent < 400) {
      const batch = Array.from({ length: 20 }, () =>
        sender.action([['Action', 'UserEvent'], ['UserEvent', 'Flood'], ...bigHeaders], 15000),
      );
      await Promise.all(batch);
      sent += batch.length;
      await sleep(10);
    }
    // Another session of this suite that falls behind under the same flood may be dropped too; this one must be.
    const log = await waitUntil(
      () => sb.logs.find((l) => l.msg === 'manager session closed' && l.user === 'slow'),
      'the slow reader to be dropped',
    );
    assert.match(String(log.reason), /write timed out|does not read/);
    // A paused socket learns of the close only once it reads what was already delivered.
    slow.socket.resume();
    await slow.waitClosed(10000);
    const ping = await sender.action([['Action', 'Ping']]);
    assert.equal(ping.get('Ping'), 'Pong');
  });
  it('SendText sends a MESSAGE inside the call to the sipp phone', { timeout: 60_000 }, async () => {
    const admin = await raw();
    await admin.login('admin', 'admin-secret');
    const phonePort = await freePort('udp');
    const phone = runSipp(
      'uas-answer-message-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: 'bob', keys: { rtpport: await freePort('udp') }, extra: ['-p', String(phonePort)] },
    );
    await sleep(500);
    const originate = await admin.action([
      ['Action', 'Originate'],
      ['Channel', `PJSIP/local-phone/sip:bob@127.0.0.1:${phonePort}`],
      ['Exten', '300'],
      ['Context', 'from-internal'],
      ['ChannelId', 'ami-text-1'],
      ['Async', 'true'],
    ]);
    assert.equal(originate.get('Message'), 'Originate successfully queued');
    await admin.waitFor((m) => m.get('Event') === 'Newexten' && m.get('Uniqueid') === 'ami-text-1' && m.get('Application') === 'Wait');
    const noText = await admin.action([
      ['Action', 'SendText'],
      ['Channel', 'ami-text-1'],
    ]);
    assert.deepEqual([noText.get('Response'), noText.get('Message')], ['Error', 'No Message specified']);
    const noChannel = await admin.action([
      ['Action', 'SendText'],
      ['Channel', 'PJSIP/nobody-00000000'],
      ['Message', 'x'],
    ]);
    assert.equal(noChannel.get('Response'), 'Error');
    const sent = await admin.action([
      ['Action', 'SendText'],
      ['Channel', 'ami-text-1'],
      ['Message', 'Hello from the manager'],
    ]);
    assert.deepEqual([sent.get('Response'), sent.get('Message')], ['Success', 'Success']);
    const hangup = await admin.action([
      ['Action', 'Hangup'],
      ['Channel', 'ami-text-1'],
    ]);
    assert.equal(hangup.get('Response'), 'Success');
    const sipp = await phone;
    assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
  });

  it('PJSIPQualify pings the endpoint contact now and reports it with ContactStatus', { timeout: 60_000 }, async () => {
    const admin = await raw();
    await admin.login('admin', 'admin-secret');
    const missing = await admin.action([['Action', 'PJSIPQualify']]);
    assert.deepEqual([missing.get('Response'), missing.get('Message')], ['Error', 'Endpoint parameter missing.']);
    const unknown = await admin.action([
      ['Action', 'PJSIPQualify'],
      ['Endpoint', 'nobody'],
    ]);
    assert.deepEqual([unknown.get('Response'), unknown.get('Message')], ['Error', 'Unable to retrieve endpoint nobody']);
    const desk = runSipp('options-uas.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: 'desk', extra: ['-p', String(deskPort)] });
    await sleep(500);
    const reply = await admin.action([
      ['Action', 'PJSIPQualify'],
      ['Endpoint', 'desk'],
    ]);
    assert.deepEqual([reply.get('Response'), reply.get('Message')], ['Success', 'Endpoint found, will qualify']);
    const status = await admin.waitFor((m) => m.get('Event') === 'ContactStatus' && m.get('EndpointName') === 'desk');
    assert.deepEqual(
      [status.get('URI'), status.get('ContactStatus'), status.get('AOR')],
      [`sip:desk@127.0.0.1:${deskPort}`, 'Reachable', 'desk'],
    );
    const sipp = await desk;
    assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
  });
});
