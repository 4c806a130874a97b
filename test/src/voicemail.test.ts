/**
 * Voicemail against the real process, sipp phones with their own RTP and a local SMTP server:
 * a caller leaves a message (a 600 Hz tone, ended with #), the owner's registered phone gets an
 * unsolicited NOTIFY with `Messages-Waiting: yes`, the API's mailbox shows one new message, the
 * email arrives with the WAV attached; the owner dials VoiceMailMain, enters the password by
 * RFC 4733, hears the tone in the RTP it receives, forwards it to another mailbox, deletes it, and
 * the lamp goes off. The message is left urgent (`U`): it counts as new and stays urgent when forwarded.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { dominantBlocks, toneShare, ulawPayloadsToLinear } from './audio-analysis.js';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard, switchboardCli } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';
import { RtpPeer } from './rtp-peer.js';

const MESSAGE_HZ = 600;
const BEEP_HZ = 1000;
const PASSWORD = '4242';

const DIALPLAN = `
exten => 800,1,VoiceMail(1001@default,uU)
 same => n,Set(GLOBAL(VM_RESULT)=\${VMSTATUS})
 same => n,Set(GLOBAL(VM_COUNT)=\${VMCOUNT(1001@default)})
 same => n,Set(GLOBAL(VM_URGENT)=\${VMCOUNT(1001@default,Urgent)})
 same => n,Set(GLOBAL(VM_EXISTS)=\${MAILBOX_EXISTS(1001@default)}\${MAILBOX_EXISTS(9999)})
 same => n,Hangup()
exten => 801,1,VoiceMailMain(1001@default)
 same => n,Hangup()
`;

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('voicemail', () => {
  let sb: RunningSwitchboard;
  let smtp: SMTPServer;
  const mails: string[] = [];
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const credentials = (user: string, password: string) => ['-au', user, '-ap', password];
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });
  const global = async (name: string) =>
    ((await (await api('GET', `/system/variable?variable=${name}`)).json()) as { value: string }).value;
  const mailbox = async (name = '1001@default') =>
    (await (await api('GET', `/mailboxes/${encodeURIComponent(name)}`)).json()) as { new_messages: number; old_messages: number };

  before(async () => {
    const smtpPort = await freePort('tcp');
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => {
          raw += chunk.toString('latin1');
        });
        stream.on('end', () => {
          mails.push(raw);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));
    sb = await startSwitchboard({
      dialplan: DIALPLAN,
      extraFiles: {
        'voicemail.conf': `[general]\nformat = wav\nserveremail = voicemail@switchboard.test\nmaxsilence = 4\nminsecs = 1\nsmtp_server = 127.0.0.1:${smtpPort}\n\n[default]\n1001 => ${PASSWORD},Olive Owner,olive@office.test\n1002 => 9999,Second Desk\n`,
      },
    });
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      [
        udpTransport(sb.sipPort),
        digestPhone('olive', 'owner-pass', { endpoint: ['mailboxes = 1001@default'] }),
        digestPhone('carl', 'caller-pass'),
      ].join('\n'),
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('takes a message, lights the lamp, mails it, plays it to the owner and deletes it', { timeout: 120_000 }, async (t) => {
    // The owner's phone registers; the NOTIFY at registration says nothing waits.
    const olivePort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'olive',
      keys: { expires: 300 },
      extra: [...credentials('olive', 'owner-pass'), '-p', String(olivePort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const atRegistration = await runSipp('notify-mwi-off-uas.xml', target(), { service: 'olive', extra: ['-p', String(olivePort)] });
    assert.equal(atRegistration.code, 0, atRegistration.stdout.slice(-2000));
    const users = (await switchboardCli(sb, ['-rx', 'voicemail show users'])).stdout;
    assert.match(users, /^default\s+1001\s+Olive Owner\s+0$/m, users);
    assert.match(users, /2 voicemail users configured in 1 context/, users);
    const lampOn = runSipp('notify-mwi-uas.xml', target(), { service: 'olive', extra: ['-p', String(olivePort)], timeoutSeconds: 60 });

    // Carl calls 800, hears the greeting and the beep, speaks a tone and presses #.
    const carl = await RtpPeer.open();
    const call = runSipp('uac-auth-wait-bye.xml', target(), {
      service: '800',
      keys: { rtpport: carl.port, user: 'carl' },
      extra: credentials('carl', 'caller-pass'),
      timeoutSeconds: 60,
    });
    try {
      await waitFor(
        'the beep before the recording',
        () => {
          const last = carl.packets.slice(-5);
          if (last.length < 5) return false;
          return toneShare(ulawPayloadsToLinear(last.map((p) => p.payload)), 8000, BEEP_HZ) > 0.5;
        },
        30_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 400));
      await carl.sendTone(MESSAGE_HZ, 2000);
      await carl.sendDtmf('#');
      const left = await call;
      assert.equal(left.code, 0, left.stdout.slice(-1500));
    } finally {
      carl.close();
    }
    assert.equal(await global('VM_RESULT'), 'SUCCESS');
    assert.equal(await global('VM_COUNT'), '1', 'an urgent message counts as new');
    assert.equal(await global('VM_URGENT'), '1');
    assert.equal(await global('VM_EXISTS'), '10');

    const on = await lampOn;
    assert.equal(on.code, 0, `no NOTIFY with Messages-Waiting: yes\n${on.stdout.slice(-2000)}`);
    assert.deepEqual(await mailbox(), { name: '1001@default', new_messages: 1, old_messages: 0 });

    await waitFor('the email at the SMTP server', () => mails.length === 1, 10_000);
    const mail = mails[0];
    assert.match(mail, /^To: "?Olive Owner"? <olive@office\.test>/m);
    assert.match(mail, /^From: "?Switchboard Voicemail"? <voicemail@switchboard\.test>/m);
    assert.match(mail, /filename="?msg-[^"\s]+\.wav/);
    assert.match(mail, /UklGR/, 'the attachment is a RIFF/WAV file (base64)');

    // The owner calls VoiceMailMain: password, then 1 to listen.
    const lampOff = runSipp('notify-mwi-off-uas.xml', target(), { service: 'olive', extra: ['-p', String(olivePort)], timeoutSeconds: 60 });
    const phone = await RtpPeer.open();
    const owner = runSipp('uac-auth-wait-bye.xml', target(), {
      service: '801',
      keys: { rtpport: phone.port, user: 'olive' },
      extra: credentials('olive', 'owner-pass'),
      timeoutSeconds: 90,
    });
    try {
      await waitFor('the password prompt', () => phone.packets.length > 10, 15_000);
      for (const digit of `${PASSWORD}#`) await phone.sendDtmf(digit);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const since = performance.now();
      await phone.sendDtmf('1');
      await waitFor(
        'the message tone in what the owner hears',
        () => {
          const heard = ulawPayloadsToLinear(phone.packets.filter((p) => p.at >= since && p.payloadType === 0).map((p) => p.payload));
          return (dominantBlocks(heard, 8000, [MESSAGE_HZ]).get(MESSAGE_HZ) ?? 0) >= 5;
        },
        30_000,
      );
      t.diagnostic('the owner heard the 600 Hz message');
      // 8: forward it to mailbox 1002, where it arrives as a new (still urgent) message.
      await phone.sendDtmf('8');
      await new Promise((resolve) => setTimeout(resolve, 800));
      for (const digit of '1002#') await phone.sendDtmf(digit);
      await waitFor('the message forwarded to 1002', async () => (await mailbox('1002@default')).new_messages === 1, 15_000);
      await phone.sendDtmf('7');
      await waitFor(
        'the message deleted',
        async () => (await mailbox()).old_messages === 0 && (await mailbox()).new_messages === 0,
        10_000,
      );
      await phone.sendDtmf('#');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await phone.sendDtmf('#');
      const done = await owner;
      assert.equal(done.code, 0, done.stdout.slice(-1500));
    } finally {
      phone.close();
    }
    const off = await lampOff;
    assert.equal(off.code, 0, `no NOTIFY with Messages-Waiting: no\n${off.stdout.slice(-2000)}`);
    const stored = (await (await api('GET', '/recordings/stored')).json()) as { name: string }[];
    assert.equal(stored.filter((s) => s.name.startsWith('voicemail/default/1001/')).length, 0, 'the message file is gone');
    assert.equal(stored.filter((s) => s.name.startsWith('voicemail/default/1002/Urgent/')).length, 1, 'the forwarded copy stays');
  });
});
