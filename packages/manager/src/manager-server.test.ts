/**
 * The manager server over real TCP sockets on a core built in the test: limits, filters, the
 * Events switch, AstDB and variable actions, the injected console runner and channel events.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect as connectTls } from 'node:tls';
import { openStore, type SqliteStore, SwitchboardCore, silentLogger } from '@switchboard/core';
import { RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '@switchboard/core/testing';
import { loadManagerConfig } from './config.js';
import { ManagerServer, UNKNOWN_ACTION } from './manager-server.js';
import { Client } from './test-client.js';

describe('ManagerServer', () => {
  let core: SwitchboardCore;
  let store: SqliteStore;
  let server: ManagerServer;
  let port: number;
  const clients: Client[] = [];

  async function connect(): Promise<Client> {
    const socket = createConnection({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    const client = new Client(socket);
    clients.push(client);
    return client;
  }

  async function login(user = 'admin', events = 'on'): Promise<Client> {
    const client = await connect();
    const reply = await client.action('login', ['Action: Login', `Username: ${user}`, `Secret: ${user}-secret`, `Events: ${events}`]);
    assert.equal(reply.get('response'), 'Success');
    return client;
  }

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'manager-server-'));
    writeFileSync(
      join(dir, 'manager.conf'),
      `[general]
enabled = yes
authtimeout = 1
actionlimit = 20
maxsessionsperaddress = 30

[admin]
secret = admin-secret
read = all
write = all

[reader]
secret = reader-secret
read = user
write = user
`,
    );
    store = openStore(join(dir, 'var'));
    const step = (priority: number, app: string, appData: string) => ({ priority, app, appData, file: 'test', line: priority });
    const dialplan = {
      contexts: [
        {
          name: 'default',
          extensions: [
            { pattern: '200', priorities: [step(1, 'Set', 'TRANSFERRED=yes'), step(2, 'Wait', '5'), step(3, 'Hangup', '')] },
            { pattern: '300', priorities: [step(1, 'Answer', ''), step(2, 'Wait', '10'), step(3, 'Hangup', '')] },
          ],
          includes: [],
          hints: { '101': ['App:desk'] },
        },
      ],
      globals: {},
    };
    core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine(), store });
    server = new ManagerServer({
      core,
      // Port 0: any free port (manager.conf itself takes 1 to 65535).
      config: { ...loadManagerConfig(dir, silentLogger), port: 0 },
      confDir: dir,
      store,
      commands: { run: async (line) => `ran: ${line}\nsecond line` },
      logger: silentLogger,
    });
    const [bound] = await server.listen();
    port = bound?.port ?? 0;
  });

  after(async () => {
    for (const client of clients) client.socket.destroy();
    await server.close();
    await store.close();
  });

  it('closes a connection that does not log in within authtimeout', async () => {
    const idle = await connect();
    await idle.waitFor(() => idle.closed, 'the close', 3000).catch(() => undefined);
    for (let i = 0; i < 100 && !idle.closed; i++) await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(idle.closed, true);
  });

  it('answers actions beyond actionlimit per second with an error', async () => {
    const client = await login('admin', 'off');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let i = 0; i < 30; i++) client.send(['Action: Ping', `ActionID: p${i}`]);
    await client.waitFor((b) => b.get('actionid') === 'p29', 'the last reply');
    const refused = client.blocks.filter((b) => b.get('message') === 'Too many actions; slow down');
    assert.ok(refused.length >= 5, `refused ${refused.length}`);
    assert.ok((server.counters.actions.get('ping') ?? 0) >= 20);
    client.socket.destroy();
  });

  it('counts action names it does not have together, so no client grows the counters', async () => {
    const stranger = await connect();
    const before = server.counters.actions.get(UNKNOWN_ACTION) ?? 0;
    for (let i = 0; i < 3; i++) stranger.send([`Action: Frobnicate${i}`, `ActionID: f${i}`]);
    await stranger.waitFor((b) => b.get('actionid') === 'f2', 'the last refusal');
    assert.equal(server.counters.actions.get(UNKNOWN_ACTION), before + 3);
    assert.ok(![...server.counters.actions.keys()].some((name) => name.startsWith('frobnicate')));
    stranger.socket.destroy();
  });

  it('refuses connections over maxsessionsperaddress', async () => {
    const before = server.counters.connectionsRejected;
    const open = await Promise.all(Array.from({ length: 30 }, () => connect()));
    const extra = await connect();
    await extra.waitFor((b) => b.get('message') === 'Too many sessions from this address', 'the refusal');
    assert.equal(server.counters.connectionsRejected, before + 1);
    for (const client of [...open, extra]) client.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
  });

  it('runs Command through the injected runner, Setvar/Getvar globals and the AstDB actions', async () => {
    const client = await login('admin', 'off');
    const command = await client.action('c', ['Action: Command', 'Command: core show uptime']);
    assert.equal(command.get('message'), 'Command output follows');
    assert.equal(command.get('output'), 'second line');
    await client.action('s', ['Action: Setvar', 'Variable: OPERATOR', 'Value: 1001']);
    assert.equal((await client.action('g', ['Action: Getvar', 'Variable: OPERATOR'])).get('value'), '1001');
    await client.action('p1', ['Action: DBPut', 'Family: fam', 'Key: a/1', 'Val: one']);
    await client.action('p2', ['Action: DBPut', 'Family: fam', 'Key: a/2', 'Val: two']);
    const get = await client.action('get', ['Action: DBGet', 'Family: fam', 'Key: a/2']);
    assert.equal(get.get('eventlist'), 'start');
    const item = await client.waitFor((b) => b.get('event') === 'DBGetResponse', 'DBGetResponse');
    assert.equal(item.get('val'), 'two');
    const tree = await client.action('t', ['Action: DBDelTree', 'Family: fam', 'Key: a']);
    assert.equal(tree.get('message'), 'Key tree deleted successfully');
    const gone = await client.action('x', ['Action: DBDel', 'Family: fam', 'Key: a/1']);
    assert.equal(gone.get('message'), 'Database entry not found');
    const noKey = await client.action('y', ['Action: DBGet', 'Family: fam']);
    assert.equal(noKey.get('message'), 'No key specified.');
    const state = await client.action('e', ['Action: ExtensionState', 'Exten: 999', 'Context: default']);
    assert.equal(state.get('status'), '-1');
    client.socket.destroy();
  });

  it('sends UserEvent to readers of class user through their filters, and Events off silences a session', async () => {
    const reader = await login('reader');
    const filtered = await login('admin');
    await filtered.action('f', ['Action: Filter', 'Operation: Add', 'Filter: UserEvent: Wanted']);
    const silent = await login('admin');
    await silent.action('off', ['Action: Events', 'EventMask: off']);
    const sender = await login('admin', 'off');
    await sender.action('u1', ['Action: UserEvent', 'UserEvent: Unwanted', 'Floor: 1']);
    await sender.action('u2', ['Action: UserEvent', 'UserEvent: Wanted', 'Floor: 2']);
    const got = await reader.waitFor((b) => b.get('userevent') === 'Wanted', 'Wanted at the reader');
    assert.equal(got.get('floor'), '2');
    assert.equal(got.get('privilege'), 'user,all');
    assert.ok(reader.blocks.some((b) => b.get('userevent') === 'Unwanted'));
    await filtered.waitFor((b) => b.get('userevent') === 'Wanted', 'Wanted through the filter');
    assert.equal(
      filtered.blocks.some((b) => b.get('userevent') === 'Unwanted'),
      false,
    );
    assert.equal(
      silent.blocks.some((b) => b.get('event') === 'UserEvent'),
      false,
    );
    // The reader may not run Originate (no originate class).
    const denied = await reader.action('o', ['Action: Originate', 'Channel: SIP/x', 'Exten: 1']);
    assert.equal(denied.get('message'), 'Permission denied');
  });

  it('reports a channel from Newchannel to Hangup with the original fields and lists it meanwhile', async () => {
    const watcher = await login('admin');
    const channel = core.channels.create({
      id: 'chan-1',
      name: 'SIP/alice-00000001',
      technology: 'SIP',
      endpoint: 'alice',
      direction: 'inbound',
      state: 'Ring',
      caller: { name: 'Alice', number: '1001' },
      language: 'en',
      dialplan: { context: 'default', exten: '100', priority: 1 },
      tech: new RecordingTechnology(),
      snapshotVariables: [],
    });
    const created = await watcher.waitFor((b) => b.get('event') === 'Newchannel', 'Newchannel');
    assert.equal(created.get('channel'), 'SIP/alice-00000001');
    assert.equal(created.get('channelstate'), '4');
    assert.equal(created.get('channelstatedesc'), 'Ring');
    assert.equal(created.get('calleridnum'), '1001');
    assert.equal(created.get('connectedlinenum'), '<unknown>');
    assert.equal(created.get('uniqueid'), 'chan-1');
    assert.equal(created.get('linkedid'), 'chan-1');
    const listed = await watcher.action('list', ['Action: Status']);
    assert.equal(listed.get('message'), 'Channel status will follow');
    const complete = await watcher.waitFor((b) => b.get('event') === 'StatusComplete', 'StatusComplete');
    assert.equal(complete.get('listitems'), '1');
    const hung = await watcher.action('h', ['Action: Hangup', 'Channel: SIP/alice-00000001', 'Cause: 17']);
    assert.equal(hung.get('message'), 'Channel Hungup');
    const hangup = await watcher.waitFor((b) => b.get('event') === 'Hangup', 'Hangup');
    assert.equal(hangup.get('cause'), '17');
    assert.equal(hangup.get('cause-txt'), 'User busy');
    assert.equal(channel.isDestroyed, true);
    assert.ok(watcher.blocks.some((b) => b.get('event') === 'HangupRequest'));
  });

  it('announces device states with the extension states of hints, ExtensionState and mailbox changes', async () => {
    const watcher = await login('admin');
    await core.deviceStates.update('App:desk', 'INUSE');
    const change = await watcher.waitFor(
      (b) => b.get('event') === 'DeviceStateChange' && b.get('device') === 'App:desk',
      'DeviceStateChange',
    );
    assert.equal(change.get('state'), 'INUSE');
    const status = await watcher.waitFor((b) => b.get('event') === 'ExtensionStatus', 'ExtensionStatus');
    assert.deepEqual(
      [status.get('exten'), status.get('context'), status.get('hint'), status.get('status'), status.get('statustext')],
      ['101', 'default', 'App:desk', '1', 'InUse'],
    );
    const state = await watcher.action('es', ['Action: ExtensionState', 'Exten: 101', 'Context: default']);
    assert.equal(state.get('statustext'), 'InUse');
    await core.mailboxes.update('1000@default', 1, 2);
    const waiting = await watcher.waitFor((b) => b.get('event') === 'MessageWaiting', 'MessageWaiting');
    assert.deepEqual(
      [waiting.get('mailbox'), waiting.get('waiting'), waiting.get('new'), waiting.get('old')],
      ['1000@default', '1', '2', '1'],
    );
    const count = await watcher.action('mc', ['Action: MailboxCount', 'Mailbox: 1000@default']);
    assert.deepEqual([count.get('newmessages'), count.get('oldmessages')], ['2', '1']);
    await watcher.action('esl', ['Action: ExtensionStateList']);
    const hint = await watcher.waitFor((x) => x.get('event') === 'ExtensionStatus' && x.get('actionid') === 'esl', 'the listed hint');
    assert.deepEqual([hint.get('exten'), hint.get('statustext')], ['101', 'InUse']);
    await watcher.action('dl', ['Action: DeviceStateList']);
    const listed = await watcher.waitFor((b) => b.get('event') === 'DeviceStateChange' && b.get('actionid') === 'dl', 'the listed device');
    assert.equal(listed.get('device'), 'App:desk');
  });

  it('bridges two channels with Bridge and blind-transfers one party to the dialplan with BlindTransfer', async () => {
    const watcher = await login('admin');
    const make = (id: string, name: string) =>
      core.channels.create({
        id,
        name,
        technology: 'SIP',
        endpoint: name.slice(4, name.indexOf('-')),
        direction: 'inbound',
        state: 'Up',
        caller: { name: '', number: id },
        language: 'en',
        dialplan: { context: 'default', exten: 's', priority: 1 },
        tech: new RecordingTechnology(),
        snapshotVariables: [],
      });
    const a = make('a-1', 'SIP/anna-00000010');
    const b = make('b-1', 'SIP/bert-00000011');
    const bridged = await watcher.action('br', ['Action: Bridge', 'Channel1: SIP/anna-00000010', 'Channel2: b-1']);
    assert.equal(bridged.get('message'), 'Channels have been bridged');
    const enters = await watcher.waitFor(
      (x) => x.get('event') === 'BridgeEnter' && x.get('channel') === 'SIP/bert-00000011',
      'BridgeEnter',
    );
    assert.equal(enters.get('bridgenumchannels'), '2');
    const missing = await watcher.action('bt0', ['Action: BlindTransfer', 'Channel: a-1', 'Exten: 999', 'Context: default']);
    assert.equal(missing.get('message'), 'Extension does not exist.');
    const transfer = await watcher.action('bt', ['Action: BlindTransfer', 'Channel: a-1', 'Exten: 200', 'Context: default']);
    assert.equal(transfer.get('message'), 'Transfer succeeded');
    const event = await watcher.waitFor((x) => x.get('event') === 'BlindTransfer', 'BlindTransfer');
    assert.equal(event.get('transfererchannel'), 'SIP/anna-00000010');
    assert.equal(event.get('transfereechannel'), 'SIP/bert-00000011');
    assert.equal(event.get('extension'), '200');
    assert.equal(event.get('result'), 'Success');
    await watcher.waitFor(
      (x) => x.get('event') === 'VarSet' && x.get('variable') === 'TRANSFERRED' && x.get('channel') === 'SIP/bert-00000011',
      'VarSet',
    );
    assert.equal(a.isDestroyed, true);
    assert.equal(b.isDestroyed, false);
    const redirect = await watcher.action('rd', ['Action: Redirect', 'Channel: b-1', 'Exten: 200', 'Context: default', 'Priority: 3']);
    assert.equal(redirect.get('message'), 'Redirect successful');
    await watcher.waitFor((x) => x.get('event') === 'Hangup' && x.get('uniqueid') === 'b-1', 'the hangup at priority 3');
  });

  it('Atxfer: the transferer consults a dialplan target, then the target takes its place when it hangs up', async () => {
    const watcher = await login('admin');
    const make = (id: string, name: string) =>
      core.channels.create({
        id,
        name,
        technology: 'SIP',
        endpoint: name.slice(4, name.indexOf('-')),
        direction: 'inbound',
        state: 'Up',
        caller: { name: 'Tom', number: id },
        language: 'en',
        dialplan: { context: 'default', exten: 's', priority: 1 },
        tech: new RecordingTechnology(),
        snapshotVariables: [],
      });
    const transferer = make('t-1', 'SIP/tom-00000020');
    const transferee = make('e-1', 'SIP/eve-00000021');
    await watcher.action('br', ['Action: Bridge', 'Channel1: t-1', 'Channel2: e-1']);
    const home = await watcher.waitFor((x) => x.get('event') === 'BridgeEnter' && x.get('uniqueid') === 'e-1', 'home bridge');
    const homeId = home.get('bridgeuniqueid');
    const started = await watcher.action('ax', ['Action: Atxfer', 'Channel: t-1', 'Exten: 300', 'Context: default']);
    assert.equal(started.get('message'), 'Atxfer successfully queued');
    const consult = await watcher.waitFor(
      (x) => x.get('event') === 'BridgeEnter' && x.get('uniqueid') === 't-1' && x.get('bridgeuniqueid') !== homeId,
      'the transferer in the consultation bridge',
    );
    const consultId = consult.get('bridgeuniqueid');
    const target = await watcher.waitFor(
      (x) =>
        x.get('event') === 'BridgeEnter' &&
        x.get('bridgeuniqueid') === consultId &&
        (x.get('channel') ?? '').startsWith('Local/300@default'),
      'the target in the consultation bridge',
    );
    await transferer.hangup();
    const done = await watcher.waitFor((x) => x.get('event') === 'AttendedTransfer', 'AttendedTransfer');
    assert.equal(done.get('result'), 'Success');
    assert.equal(done.get('desttype'), 'Bridge');
    assert.equal(done.get('destbridgeuniqueid'), homeId);
    assert.equal(done.get('transfereechannel'), 'SIP/eve-00000021');
    assert.equal(done.get('transfertargetchannel'), target.get('channel'));
    const joined = core.bridges.get(homeId ?? '')?.snapshot().channels ?? [];
    assert.deepEqual(joined.sort(), ['e-1', target.get('uniqueid')].sort());
    // The Bridge action's rule holds in the bridge: the transferee hangs up, so the target is hung up.
    await transferee.hangup();
    await watcher.waitFor((x) => x.get('event') === 'Hangup' && x.get('uniqueid') === target.get('uniqueid'), 'the target hung up');
  });

  it('PlayDTMF queues a digit and announces it with Direction: Sent', async () => {
    const watcher = await login('admin');
    const channel = core.channels.create({
      id: 'd-1',
      name: 'SIP/dora-00000030',
      technology: 'SIP',
      endpoint: 'dora',
      direction: 'inbound',
      state: 'Up',
      caller: { name: '', number: '1' },
      language: 'en',
      dialplan: { context: 'default', exten: 's', priority: 1 },
      tech: new RecordingTechnology(),
      snapshotVariables: [],
    });
    const bad = await watcher.action('bad', ['Action: PlayDTMF', 'Channel: d-1', 'Digit: 5', 'Duration: -3']);
    assert.equal(bad.get('message'), 'Invalid duration');
    const queued = await watcher.action('dt', ['Action: PlayDTMF', 'Channel: d-1', 'Digit: 5', 'Duration: 80']);
    assert.equal(queued.get('message'), 'DTMF successfully queued');
    const begin = await watcher.waitFor((x) => x.get('event') === 'DTMFBegin', 'DTMFBegin');
    assert.deepEqual([begin.get('digit'), begin.get('direction'), begin.get('uniqueid')], ['5', 'Sent', 'd-1']);
    const end = await watcher.waitFor((x) => x.get('event') === 'DTMFEnd', 'DTMFEnd');
    assert.equal(end.get('durationms'), '80');
    await channel.hangup();
  });

  it('Originate runs a dialplan application on the answered channel, and answers Originate failed when nobody answers', async () => {
    const watcher = await login('admin');
    const ok = await watcher.action('o1', ['Action: Originate', 'Channel: Local/300@default', 'Application: Set', 'Data: FROM_AMI=yes']);
    assert.equal(ok.get('message'), 'Originate successfully queued');
    const set = await watcher.waitFor((x) => x.get('event') === 'VarSet' && x.get('variable') === 'FROM_AMI', 'VarSet FROM_AMI');
    assert.match(set.get('channel') ?? '', /^Local\/300@default-.*;1$/);
    const failed = await watcher.action('o2', ['Action: Originate', 'Channel: Local/999@default', 'Exten: 300', 'Context: default']);
    assert.deepEqual([failed.get('response'), failed.get('message')], ['Error', 'Originate failed']);
    const unknownApp = await watcher.action('o3', ['Action: Originate', 'Channel: Local/300@default', 'Application: NoSuchApp']);
    assert.equal(unknownApp.get('message'), "Unknown dialplan application 'NoSuchApp'");
  });
});

// The certificate is made with openssl (node:crypto cannot make an X.509 certificate);
// scripts/ensure-tools.mjs installs it before the tests run.
describe('ManagerServer over TLS', { timeout: 20_000 }, () => {
  it('greets and logs in over the TLS listener (tlsenable, tlsbindaddr, tlscertfile, tlsprivatekey)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'manager-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')].concat([
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ]),
      { stdio: 'ignore' },
    );
    writeFileSync(
      join(dir, 'manager.conf'),
      `[general]\nenabled = yes\ntlsenable = yes\ntlscertfile = ${join(dir, 'cert.pem')}\ntlsprivatekey = ${join(dir, 'key.pem')}\n\n[admin]\nsecret = admin-secret\nread = all\nwrite = all\n`,
    );
    const store = openStore(join(dir, 'var'));
    const core = new SwitchboardCore({ config: testCoreConfig(), media: new RecordingMediaEngine(), store });
    const loaded = loadManagerConfig(dir, silentLogger);
    assert.ok(loaded.tls);
    const server = new ManagerServer({
      core,
      config: { ...loaded, port: 0, tls: { ...loaded.tls, port: 0 } },
      confDir: dir,
      store,
      logger: silentLogger,
    });
    const addresses = await server.listen();
    const tls = addresses.find((a) => a.protocol === 'tls');
    assert.ok(tls);
    const socket = connectTls({ host: '127.0.0.1', port: tls.port, rejectUnauthorized: false });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    const client = new Client(socket as unknown as Socket);
    const reply = await client.action('l', ['Action: Login', 'Username: admin', 'Secret: admin-secret']);
    assert.equal(reply.get('message'), 'Authentication accepted');
    socket.destroy();
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
