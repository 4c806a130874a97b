/**
 * Phone-to-phone text messages through the dialplan, as in the original: alice's MESSAGE to bob
 * runs alice's `message_context`, where MESSAGE_DATA() adds a header and MessageSend() delivers
 * the message to bob's registered phone (sipp answering 200 to a MESSAGE carrying alice's text).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';

const DIALPLAN = `
exten => 100,1,Hangup()

[messages]
exten => _.,1,Set(MESSAGE_DATA(X-Color)=blue)
 same => n,MessageSend(pjsip:\${EXTEN},\${MESSAGE(from)})
 same => n,Log(NOTICE,message for \${EXTEN} from \${CALLERID(num)} tracked \${MESSAGE_DATA(X-Tracking)}: \${MESSAGE_SEND_STATUS})
`;

const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

describe('dialplan: MESSAGE routing', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      [
        udpTransport(sb.sipPort),
        digestPhone('alice', 'wonderland', { endpoint: ['message_context = messages'] }),
        digestPhone('bob', 'builder', { endpoint: ['message_context = messages'] }),
      ].join('\n'),
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('delivers alice → bob through MessageSend to bob’s registered phone', { timeout: 40_000 }, async () => {
    const bobPort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const bobPhone = runSipp('message-uas.xml', target(), {
      service: 'bob',
      keys: { text: 'Hello from sipp' },
      extra: ['-p', String(bobPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = await runSipp('message-uac-auth.xml', target(), {
      service: 'bob',
      keys: { user: 'alice' },
      extra: credentials('alice', 'wonderland'),
    });
    assert.equal(sent.code, 0, sent.stdout.slice(-2000));
    const received = await bobPhone;
    assert.equal(received.code, 0, received.stdout.slice(-2000));
    const deadline = Date.now() + 5000;
    while (!sb.logs.some((l) => String(l.msg).startsWith('message for bob')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(sb.logs.some((l) => l.msg === 'message for bob from alice tracked sipp-1: SUCCESS'));
  });
});
