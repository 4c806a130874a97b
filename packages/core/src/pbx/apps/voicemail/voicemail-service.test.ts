import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { EventBus } from '../../../events/event-bus.js';
import { silentLogger } from '../../../util/logger.js';
import { defaultVoicemailConfig, type MailboxConfig } from './voicemail-config.js';
import { emailVariables, substitute } from './voicemail-mailer.js';
import { VoicemailService } from './voicemail-service.js';
import { MemoryVoicemailStore } from './voicemail-store.js';

const box: MailboxConfig = {
  context: 'default',
  mailbox: '1001',
  password: '4242',
  fullName: 'Olive Owner',
  email: '',
  pager: '',
  attach: true,
};

describe('voicemail service', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function setup() {
    const root = mkdtempSync(join(tmpdir(), 'vm-'));
    roots.push(root);
    const config = { ...defaultVoicemailConfig(), mailboxes: new Map([['1001@default', box]]) };
    const counts: Array<[string, number, number]> = [];
    const bus = new EventBus();
    const events: string[] = [];
    bus.subscribe((e) => events.push(e.type));
    const service = new VoicemailService({
      config: () => config,
      store: new MemoryVoicemailStore(),
      mailboxes: {
        update: async (name, oldMessages, newMessages) => {
          counts.push([name, oldMessages, newMessages]);
        },
      },
      bus,
      recordingRoot: root,
      log: silentLogger,
    });
    /** Writes a WAV of `seconds` of silence where the recorder would have. */
    const record = (recording: string, seconds: number) => {
      const file = join(root, `${recording}.wav`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.alloc(44 + seconds * 16_000));
      return file;
    };
    return { root, service, counts, events, record };
  }

  it('keeps a message, moves it to Old with its file, deletes it, and tells the mailbox each time', async () => {
    const { root, service, counts, events, record } = setup();
    const { id, recording } = service.newMessageRecording(box);
    record(recording, 3);
    const message = service.deposit(box, id, recording, '"Carl" <2002>');
    assert.ok(message);
    assert.equal(message.durationSeconds, 3);
    assert.equal(service.count(box, 'INBOX'), 1);
    const old = service.move(box, message, 'Old');
    assert.ok(existsSync(join(root, `${old.recording}.wav`)));
    assert.ok(!existsSync(join(root, `${recording}.wav`)));
    assert.equal(service.count(box, 'Old'), 1);
    service.remove(box, old);
    assert.ok(!existsSync(join(root, `${old.recording}.wav`)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(counts, [
      ['1001@default', 0, 1],
      ['1001@default', 1, 0],
      ['1001@default', 0, 0],
    ]);
    assert.deepEqual(
      events.filter((e) => e.startsWith('Voicemail')),
      ['VoicemailMessageStored', 'VoicemailMessageMoved', 'VoicemailMessageRemoved'],
    );
    assert.deepEqual(service.list(), [
      { context: 'default', mailbox: '1001', full_name: 'Olive Owner', email: '', new_messages: 0, old_messages: 0, urgent_messages: 0 },
    ]);
  });

  it('copies a message into a second mailbox with its own file', () => {
    const { root, service, record } = setup();
    const other: MailboxConfig = { ...box, mailbox: '1002', fullName: 'Second' };
    const { id, recording } = service.newMessageRecording(box);
    record(recording, 2);
    const message = service.deposit(box, id, recording, '');
    assert.ok(message);
    const copy = service.depositCopy(other, message);
    assert.ok(copy);
    assert.notEqual(copy.recording, message.recording);
    assert.ok(existsSync(join(root, `${copy.recording}.wav`)));
    assert.equal(service.count(other, 'INBOX'), 1);
    assert.equal(service.count(box, 'INBOX'), 1);
  });

  it('discards a message shorter than minsecs', () => {
    const { root, service, record } = setup();
    const { id, recording } = service.newMessageRecording(box);
    record(recording, 0);
    assert.equal(service.deposit(box, id, recording, ''), undefined);
    assert.ok(!existsSync(join(root, `${recording}.wav`)));
    assert.equal(service.count(box, 'INBOX'), 0);
  });

  it('fills the email template variables', () => {
    const variables = emailVariables(
      box,
      {
        id: 'm',
        context: 'default',
        mailbox: '1001',
        folder: 'INBOX',
        recording: 'r',
        format: 'wav',
        callerId: '2002',
        origTime: 0,
        durationSeconds: 75,
      },
      3,
    );
    const v = (name: string) => `\${VM_${name}}`;
    assert.equal(
      substitute(`${v('NAME')}: ${v('MSGNUM')} (${v('DUR')}) ${v('UNKNOWN')}`, variables),
      `Olive Owner: 3 (1:15) ${v('UNKNOWN')}`,
    );
  });
});
