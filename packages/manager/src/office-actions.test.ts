/**
 * The queue and ConfBridge action and event families over real TCP sockets on a core built in
 * the test with queues.conf and confbridge.conf: members added, paused and removed with their
 * events, a caller waiting in a queue listed by QueueStatus, and a conference listed, muted and
 * kicked from with its events; voicemail.conf's mailboxes listed and refreshed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore, type SqliteStore, SwitchboardCore, silentLogger } from '@switchboard/core';
import { RecordingMediaEngine, testCoreConfig } from '@switchboard/core/testing';
import { loadManagerConfig } from './config.js';
import { ManagerServer } from './manager-server.js';
import { type Block, Client } from './test-client.js';

describe('ManagerServer queue and ConfBridge actions', { timeout: 30_000 }, () => {
  let dir: string;
  let core: SwitchboardCore;
  let store: SqliteStore;
  let server: ManagerServer;
  let port: number;
  const clients: Client[] = [];

  async function login(): Promise<Client> {
    const socket = createConnection({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    const client = new Client(socket);
    clients.push(client);
    const reply = await client.action('login', ['Action: Login', 'Username: admin', 'Secret: admin-secret', 'Events: on']);
    assert.equal(reply.get('response'), 'Success');
    return client;
  }

  /** The items of a list reply, up to its complete event. */
  async function list(client: Client, id: string, lines: string[], complete: string): Promise<Block[]> {
    const reply = await client.action(id, lines);
    assert.equal(reply.get('response'), 'Success', reply.get('message'));
    const done = await client.waitFor((b) => b.get('actionid') === id && b.get('event') === complete, complete);
    const items = client.blocks.filter((b) => b.get('actionid') === id && b.has('event') && b !== done);
    assert.equal(done.get('listitems'), String(items.length));
    return items;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'manager-office-'));
    writeFileSync(join(dir, 'manager.conf'), '[general]\nenabled = yes\n\n[admin]\nsecret = admin-secret\nread = all\nwrite = all\n');
    writeFileSync(
      join(dir, 'queues.conf'),
      '[general]\npersistentmembers = yes\n\n[support]\nstrategy = ringall\nmember => SIP/desk,0,Desk\n',
    );
    writeFileSync(join(dir, 'confbridge.conf'), '[quiet_user]\ntype = user\nquiet = yes\nannounce_only_user = no\n');
    writeFileSync(
      join(dir, 'voicemail.conf'),
      '[general]\nserveremail = pbx@example.com\n\n[default]\n1001 => 4242,Alice,alice@example.com\n',
    );
    store = openStore(join(dir, 'var'));
    const step = (priority: number, app: string, appData: string) => ({ priority, app, appData, file: 'test', line: priority });
    const dialplan = {
      contexts: [
        {
          name: 'default',
          extensions: [{ pattern: '300', priorities: [step(1, 'Answer', ''), step(2, 'Wait', '20'), step(3, 'Hangup', '')] }],
          includes: [],
          hints: {},
        },
      ],
      globals: {},
    };
    core = new SwitchboardCore({ config: { ...testCoreConfig({ dialplan }), confDir: dir }, media: new RecordingMediaEngine(), store });
    server = new ManagerServer({
      core,
      config: { ...loadManagerConfig(dir, silentLogger), port: 0 },
      confDir: dir,
      store,
      commands: undefined,
      logger: silentLogger,
    });
    const [bound] = await server.listen();
    port = bound?.port ?? 0;
  });

  after(async () => {
    for (const client of clients) client.socket.destroy();
    for (const channel of core.channels.list()) await channel.hangup().catch(() => undefined);
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('QueueAdd, QueuePause and QueueRemove change members, with their events and the original errors', async () => {
    const client = await login();
    const added = await client.action('a', [
      'Action: QueueAdd',
      'Queue: support',
      'Interface: SIP/alice',
      'Penalty: 2',
      'MemberName: Alice',
    ]);
    assert.equal(added.get('message'), 'Added interface to queue');
    const addedEvent = await client.waitFor((b) => b.get('event') === 'QueueMemberAdded', 'QueueMemberAdded');
    assert.deepEqual(
      ['queue', 'membername', 'interface', 'membership', 'penalty', 'paused', 'privilege'].map((k) => addedEvent.get(k)),
      ['support', 'Alice', 'SIP/alice', 'dynamic', '2', '0', 'agent,all'],
    );
    const again = await client.action('a2', ['Action: QueueAdd', 'Queue: support', 'Interface: SIP/alice']);
    assert.deepEqual([again.get('response'), again.get('message')], ['Error', 'Unable to add interface: Already there']);
    const noQueue = await client.action('a3', ['Action: QueueAdd', 'Queue: sales', 'Interface: SIP/alice']);
    assert.equal(noQueue.get('message'), 'Unable to add interface to queue: No such queue');

    const paused = await client.action('p', ['Action: QueuePause', 'Interface: SIP/alice', 'Paused: true', 'Reason: lunch']);
    assert.equal(paused.get('message'), 'Interface paused successfully');
    const pauseEvent = await client.waitFor((b) => b.get('event') === 'QueueMemberPause', 'QueueMemberPause');
    assert.deepEqual([pauseEvent.get('paused'), pauseEvent.get('pausedreason')], ['1', 'lunch']);
    assert.ok(Number(pauseEvent.get('lastpause')) > 0, 'LastPause set by the pause');
    assert.ok(Number(pauseEvent.get('logintime')) >= Number(addedEvent.get('logintime')) && Number(addedEvent.get('logintime')) > 0);
    assert.equal(pauseEvent.get('ringinuse'), '1');
    const missing = await client.action('p2', ['Action: QueuePause', 'Interface: SIP/nobody', 'Paused: false']);
    assert.equal(missing.get('message'), 'Interface not found');
    const noPaused = await client.action('p3', ['Action: QueuePause', 'Interface: SIP/alice']);
    assert.equal(noPaused.get('message'), "Need 'Paused' parameter.");

    const members = (await list(client, 's', ['Action: QueueStatus', 'Queue: support'], 'QueueStatusComplete')).filter(
      (b) => b.get('event') === 'QueueMember',
    );
    assert.deepEqual(
      members.map((m) => [m.get('name'), m.get('location'), m.get('membership'), m.get('paused')]),
      [
        ['Desk', 'SIP/desk', 'static', '0'],
        ['Alice', 'SIP/alice', 'dynamic', '1'],
      ],
    );

    const notDynamic = await client.action('r0', ['Action: QueueRemove', 'Queue: support', 'Interface: SIP/desk']);
    assert.equal(notDynamic.get('response'), 'Error');
    const removed = await client.action('r', ['Action: QueueRemove', 'Queue: support', 'Interface: SIP/alice']);
    assert.equal(removed.get('message'), 'Removed interface from queue');
    await client.waitFor((b) => b.get('event') === 'QueueMemberRemoved' && b.get('interface') === 'SIP/alice', 'QueueMemberRemoved');
    const notThere = await client.action('r2', ['Action: QueueRemove', 'Queue: support', 'Interface: SIP/alice']);
    assert.equal(notThere.get('message'), 'Unable to remove interface: Not there');
  });

  it('a caller waiting in a queue: QueueCallerJoin, a QueueEntry in QueueStatus, QueueSummary, QueueCallerAbandon', async () => {
    const client = await login();
    const queued = await client.action('o', ['Action: Originate', 'Channel: Local/300@default', 'Application: Queue', 'Data: support']);
    assert.equal(queued.get('message'), 'Originate successfully queued');
    const join = await client.waitFor((b) => b.get('event') === 'QueueCallerJoin', 'QueueCallerJoin', 5000);
    assert.deepEqual([join.get('queue'), join.get('position'), join.get('count')], ['support', '1', '1']);
    assert.match(join.get('channel') ?? '', /^Local\/300@default-.*;1$/);

    const items = await list(client, 's', ['Action: QueueStatus'], 'QueueStatusComplete');
    const params = items.find((b) => b.get('event') === 'QueueParams');
    assert.deepEqual([params?.get('queue'), params?.get('strategy'), params?.get('calls')], ['support', 'ringall', '1']);
    const entry = items.find((b) => b.get('event') === 'QueueEntry');
    assert.deepEqual(
      [entry?.get('position'), entry?.get('channel'), entry?.get('uniqueid')],
      ['1', join.get('channel'), join.get('uniqueid')],
    );
    assert.deepEqual([entry?.get('priority'), entry?.has('channelstate')], ['0', false], 'the original QueueEntry fields');

    const [summary] = await list(client, 'q', ['Action: QueueSummary', 'Queue: support'], 'QueueSummaryComplete');
    assert.deepEqual([summary?.get('queue'), summary?.get('callers')], ['support', '1']);

    const hangup = await client.action('h', ['Action: Hangup', `Channel: ${join.get('channel')}`]);
    assert.equal(hangup.get('response'), 'Success');
    const abandon = await client.waitFor((b) => b.get('event') === 'QueueCallerAbandon', 'QueueCallerAbandon', 5000);
    assert.deepEqual([abandon.get('queue'), abandon.get('originalposition')], ['support', '1']);
    const afterAbandon = await list(client, 's2', ['Action: QueueStatus', 'Queue: support'], 'QueueStatusComplete');
    const counted = afterAbandon.find((b) => b.get('event') === 'QueueParams');
    // Abandoned within the service level counts as met in the second measure only.
    assert.deepEqual(
      ['abandoned', 'servicelevelperf', 'servicelevelperf2'].map((k) => counted?.get(k)),
      ['1', '0.0', '100.0'],
    );
  });

  it('ConfbridgeList, ConfbridgeLock/Unlock, ConfbridgeStartRecord/StopRecord, ConfbridgeMute/Unmute and ConfbridgeKick, with the ConfBridge events', async () => {
    const client = await login();
    const none = await client.action('l0', ['Action: ConfbridgeList', 'Conference: office']);
    assert.deepEqual([none.get('response'), none.get('message')], ['Error', 'No active conferences.']);
    for (const id of ['o1', 'o2']) {
      const reply = await client.action(id, [
        'Action: Originate',
        'Channel: Local/300@default',
        'Application: ConfBridge',
        'Data: office,,quiet_user',
      ]);
      assert.equal(reply.get('message'), 'Originate successfully queued');
    }
    const start = await client.waitFor((b) => b.get('event') === 'ConfbridgeStart', 'ConfbridgeStart', 5000);
    assert.equal(start.get('conference'), 'office');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeJoin' && b.get('conference') === 'office', 'first ConfbridgeJoin', 5000);
    for (let i = 0; i < 100 && client.blocks.filter((b) => b.get('event') === 'ConfbridgeJoin').length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const joins = client.blocks.filter((b) => b.get('event') === 'ConfbridgeJoin');
    assert.equal(joins.length, 2);
    assert.deepEqual(
      [joins[0]?.get('admin'), joins[0]?.get('muted'), joins[0]?.get('bridgeuniqueid')],
      ['No', 'No', start.get('bridgeuniqueid')],
    );

    const users = await list(client, 'l', ['Action: ConfbridgeList', 'Conference: office'], 'ConfbridgeListComplete');
    assert.deepEqual(users.map((u) => u.get('channel')).sort(), joins.map((j) => j.get('channel')).sort());
    // The original's order: Conference, the user's flags (Talking included), AnsweredTime, then the channel block.
    const keys = [...(users[0]?.keys() ?? [])];
    const flags = [
      'conference',
      'admin',
      'markeduser',
      'waitmarked',
      'endmarked',
      'waiting',
      'muted',
      'talking',
      'answeredtime',
      'channel',
    ];
    assert.deepEqual(
      flags.map((k) => keys.indexOf(k)),
      flags.map((k) => keys.indexOf(k)).sort((x, y) => x - y),
      keys.join(','),
    );
    assert.equal(users[0]?.get('talking'), 'No');
    const rooms = await list(client, 'lr', ['Action: ConfbridgeListRooms'], 'ConfbridgeListRoomsComplete');
    assert.deepEqual([rooms[0]?.get('conference'), rooms[0]?.get('parties'), rooms[0]?.get('locked')], ['office', '2', 'No']);
    const locked = await client.action('lk', ['Action: ConfbridgeLock', 'Conference: office']);
    assert.equal(locked.get('message'), 'Conference locked');
    const lockEvent = await client.waitFor((b) => b.get('event') === 'ConfbridgeLock', 'ConfbridgeLock');
    assert.deepEqual([lockEvent.get('conference'), lockEvent.get('bridgeuniqueid')], ['office', start.get('bridgeuniqueid')]);
    const lockedRooms = await list(client, 'lr2', ['Action: ConfbridgeListRooms'], 'ConfbridgeListRoomsComplete');
    assert.equal(lockedRooms[0]?.get('locked'), 'Yes');
    const unlocked = await client.action('ul', ['Action: ConfbridgeUnlock', 'Conference: office']);
    assert.equal(unlocked.get('message'), 'Conference unlocked');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeUnlock' && b.get('conference') === 'office', 'ConfbridgeUnlock');

    const notRecording = await client.action('sr0', ['Action: ConfbridgeStopRecord', 'Conference: office']);
    assert.deepEqual([notRecording.get('response'), notRecording.get('message')], ['Error', 'Internal error while stopping recording.']);
    const badFile = await client.action('sr1', ['Action: ConfbridgeStartRecord', 'Conference: office', 'RecordFile: ../outside']);
    assert.equal(badFile.get('response'), 'Error');
    const recording = await client.action('sr2', [
      'Action: ConfbridgeStartRecord',
      'Conference: office',
      'RecordFile: meetings/office.wav',
    ]);
    assert.equal(recording.get('message'), 'Conference Recording Started.');
    const recordEvent = await client.waitFor((b) => b.get('event') === 'ConfbridgeRecord', 'ConfbridgeRecord');
    assert.deepEqual([recordEvent.get('conference'), recordEvent.get('bridgeuniqueid')], ['office', start.get('bridgeuniqueid')]);
    const live = core.conferences.list().find((c) => c.name === 'office')?.recording ?? '';
    assert.match(live, /^meetings\/office-\d+$/);
    const twice = await client.action('sr3', ['Action: ConfbridgeStartRecord', 'Conference: office']);
    assert.equal(twice.get('message'), 'Conference is already being recorded.');
    const stopped = await client.action('sr4', ['Action: ConfbridgeStopRecord', 'Conference: office']);
    assert.equal(stopped.get('message'), 'Conference Recording Stopped.');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeStopRecord' && b.get('conference') === 'office', 'ConfbridgeStopRecord');
    const unknown = await client.action('l2', ['Action: ConfbridgeList', 'Conference: nowhere']);
    assert.equal(unknown.get('message'), 'No Conference by that name found.');

    const first = joins[0]?.get('channel') ?? '';
    const muted = await client.action('m', ['Action: ConfbridgeMute', 'Conference: office', `Channel: ${first}`]);
    assert.equal(muted.get('message'), 'User muted');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeMute' && b.get('channel') === first, 'ConfbridgeMute');
    const listedMuted = await list(client, 'l3', ['Action: ConfbridgeList', 'Conference: office'], 'ConfbridgeListComplete');
    assert.equal(listedMuted.find((u) => u.get('channel') === first)?.get('muted'), 'Yes');
    const unmuted = await client.action('u', ['Action: ConfbridgeUnmute', 'Conference: office', `Channel: ${first}`]);
    assert.equal(unmuted.get('message'), 'User unmuted');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeUnmute' && b.get('channel') === first, 'ConfbridgeUnmute');
    const noSuch = await client.action('m2', ['Action: ConfbridgeMute', 'Conference: office', 'Channel: SIP/nobody-1']);
    assert.equal(noSuch.get('message'), 'No Channel by that name found in Conference.');

    const kicked = await client.action('k', ['Action: ConfbridgeKick', 'Conference: office', `Channel: ${first}`]);
    assert.equal(kicked.get('message'), 'User kicked');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeLeave' && b.get('channel') === first, 'ConfbridgeLeave', 5000);
    const kickAll = await client.action('k2', ['Action: ConfbridgeKick', 'Conference: office', 'Channel: all']);
    assert.equal(kickAll.get('message'), 'User kicked');
    await client.waitFor((b) => b.get('event') === 'ConfbridgeEnd' && b.get('conference') === 'office', 'ConfbridgeEnd', 5000);
  });

  it('VoicemailUsersList lists the mailboxes with their counts; VoicemailRefresh sends their MessageWaiting again', async () => {
    const client = await login();
    const [entry, ...others] = await list(client, 'v', ['Action: VoicemailUsersList'], 'VoicemailUsersListComplete');
    assert.equal(others.length, 0);
    assert.deepEqual(
      ['vmcontext', 'voicemailbox', 'fullname', 'email', 'serveremail', 'newmessagecount', 'oldmessagecount'].map((k) => entry?.get(k)),
      ['default', '1001', 'Alice', 'alice@example.com', 'pbx@example.com', '0', '0'],
    );
    const refreshed = await client.action('r', ['Action: VoicemailRefresh', 'Context: default', 'Mailbox: 1001']);
    assert.equal(refreshed.get('response'), 'Success');
    const waiting = await client.waitFor(
      (b) => b.get('event') === 'MessageWaiting' && b.get('mailbox') === '1001@default',
      'MessageWaiting',
    );
    assert.deepEqual([waiting.get('waiting'), waiting.get('new')], ['0', '0']);
  });
});
