import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { EventBus } from '../../../events/event-bus.js';
import { silentLogger } from '../../../util/logger.js';
import { withMailboxPassword } from './voicemail-conf-writer.js';
import { greetingUris } from './install-voicemail.js';
import { defaultVoicemailConfig, type MailboxConfig } from './voicemail-config.js';
import { envelope, sayTimeOfDay, sayWhichDay } from './voicemail-envelope.js';
import { emailVariables, substitute } from './voicemail-mailer.js';
import { countPrompts } from './voicemail-main.js';
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

  it('keeps an urgent message in Urgent, counts it as new and keeps it urgent when copied', async () => {
    const { root, service, counts, record } = setup();
    const other: MailboxConfig = { ...box, mailbox: '1002', fullName: 'Second' };
    const { id, recording } = service.newMessageRecording(box, 'Urgent');
    assert.match(recording, /^voicemail\/default\/1001\/Urgent\//);
    record(recording, 2);
    const message = service.deposit(box, id, recording, '', 'Urgent');
    assert.equal(message?.folder, 'Urgent');
    assert.deepEqual([service.count(box, 'INBOX'), service.count(box, 'Urgent'), service.newCount(box)], [0, 1, 1]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(counts, [['1001@default', 0, 1]]);
    assert.equal(service.list()[0]?.new_messages, 1);
    assert.equal(service.list()[0]?.urgent_messages, 1);
    assert.ok(message);
    const copy = service.depositCopy(other, message);
    assert.equal(copy?.folder, 'Urgent');
    assert.ok(existsSync(join(root, `${copy?.recording}.wav`)));
    const heard = service.move(box, message, 'Old');
    assert.deepEqual([service.newCount(box), service.count(box, 'Old'), heard.folder], [0, 1, 'Old']);
  });

  it('writes a changed password into the mailbox line of voicemail.conf and the store', () => {
    const { root } = setup();
    const file = join(root, 'voicemail.conf');
    writeFileSync(
      file,
      '[general]\nformat = wav\n\n[other]\n1001 => 1111,Elsewhere\n\n[default]\n; the owner\n1001 => 4242,Olive Owner,olive@office.test ; desk\n1002 = 9,Bob\n',
    );
    const store = new MemoryVoicemailStore();
    const service = new VoicemailService({
      config: () => ({ ...defaultVoicemailConfig(), mailboxes: new Map([['1001@default', box]]) }),
      store,
      mailboxes: { update: async () => undefined },
      bus: new EventBus(),
      recordingRoot: root,
      configFile: file,
      log: silentLogger,
    });
    service.setPassword(box, '5678');
    assert.equal(service.password(box), '5678');
    assert.equal(
      readFileSync(file, 'utf8'),
      '[general]\nformat = wav\n\n[other]\n1001 => 1111,Elsewhere\n\n[default]\n; the owner\n1001 => 5678,Olive Owner,olive@office.test ; desk\n1002 = 9,Bob\n',
    );
    assert.equal(withMailboxPassword('[default]\n1003 => 1\n', 'default', '1001', '2'), undefined);
    assert.equal(withMailboxPassword('[default]\n1002=9\n', 'default', '1002', '77'), '[default]\n1002=77\n');
  });

  it('says the envelope as the original: day, "at", 12-hour time, then who called', () => {
    const now = new Date(2026, 10, 24, 15, 0);
    const at = (d: Date) => ({ origTime: d.getTime() / 1000, callerId: '"Carl" <2002>' });
    assert.deepEqual(envelope(at(new Date(2026, 10, 24, 9, 5)), now), [
      'sound:vm-received',
      'sound:digits/today',
      'sound:digits/at',
      'number:9',
      'sound:digits/oh',
      'number:5',
      'sound:digits/a-m',
      'sound:vm-from',
      'digits:2002',
    ]);
    assert.deepEqual(sayWhichDay(new Date(2026, 10, 23, 23, 59), now), ['sound:digits/yesterday']);
    // 2026-11-20 is a Friday (day 5).
    assert.deepEqual(sayWhichDay(new Date(2026, 10, 20, 8, 0), now), ['sound:digits/day-5']);
    assert.deepEqual(sayWhichDay(new Date(2026, 9, 2, 8, 0), now), ['sound:digits/day-5', 'sound:digits/mon-9', 'number:2']);
    assert.deepEqual(sayWhichDay(new Date(2025, 0, 1, 8, 0), now), ['sound:digits/day-3', 'sound:digits/mon-0', 'number:1', 'number:2025']);
    assert.deepEqual(sayTimeOfDay(new Date(2026, 0, 1, 0, 0)), ['number:12', 'sound:digits/oclock', 'sound:digits/a-m']);
    assert.deepEqual(sayTimeOfDay(new Date(2026, 0, 1, 13, 45)), ['number:1', 'number:45', 'sound:digits/p-m']);
    assert.equal(envelope({ origTime: 0, callerId: '' }, now).at(-1), 'sound:vm-unknown-caller');
  });

  it('announces urgent, new and old counts as the original', () => {
    assert.deepEqual(countPrompts(0, 0, 0), ['sound:vm-youhave', 'sound:vm-no', 'sound:vm-INBOX', 'sound:vm-messages']);
    assert.deepEqual(countPrompts(1, 0, 2), [
      'sound:vm-youhave',
      'number:1',
      'sound:vm-Urgent',
      'sound:vm-message',
      'sound:vm-and',
      'number:2',
      'sound:vm-Old',
      'sound:vm-messages',
    ]);
    assert.deepEqual(countPrompts(0, 3, 0), ['sound:vm-youhave', 'number:3', 'sound:vm-INBOX', 'sound:vm-messages']);
  });

  it('greets with the temporary, then the recorded, then the owner’s name, then the digits', () => {
    const { service, record } = setup();
    assert.deepEqual(greetingUris(service, box, 'busy'), ['sound:vm-theperson', 'digits:1001', 'sound:vm-isonphone']);
    record(service.greetingRecording(box, 'greet'), 1);
    assert.deepEqual(greetingUris(service, box, 'unavail'), [
      'sound:vm-theperson',
      'recording:voicemail/default/1001/greet',
      'sound:vm-isunavail',
    ]);
    record(service.greetingRecording(box, 'unavail'), 1);
    assert.deepEqual(greetingUris(service, box, 'unavail'), ['recording:voicemail/default/1001/unavail']);
    record(service.greetingRecording(box, 'temp'), 1);
    assert.deepEqual(greetingUris(service, box, 'unavail'), ['recording:voicemail/default/1001/temp']);
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
    assert.equal(variables.VM_FLAG, '');
    const urgent = emailVariables(
      box,
      {
        id: 'u',
        context: 'default',
        mailbox: '1001',
        folder: 'Urgent',
        recording: 'r',
        format: 'wav',
        callerId: '',
        origTime: 0,
        durationSeconds: 1,
      },
      1,
    );
    assert.equal(substitute(`New ${v('FLAG')} message`, urgent), 'New Urgent message');
  });
});
