/**
 * The bridge Dial() connects two phones in is one of the system's bridges, against the real
 * process and two sipp phones: GET /ari/bridges lists it with both channels (a basic bridge no
 * application owns, so the API may look but not change it), an application subscribed to
 * everything sees it created, the channels enter it, and it goes when the call ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const APP = 'dial-watcher';
/** Subscribed to the phone's endpoint only: it sees its channels enter and leave, not the bridge itself. */
const PHONE_APP = 'phone-watcher';

interface BridgeJson {
  id: string;
  technology: string;
  bridge_type: string;
  bridge_class: string;
  creator: string;
  channels: string[];
}

interface Event {
  type: string;
  bridge?: BridgeJson;
  channel?: { id: string; name: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An application's event WebSocket, collecting what arrives. */
async function listen(sb: RunningSwitchboard, app: string, subscribeAll: boolean): Promise<{ events: Event[]; socket: WebSocket }> {
  const socket = new WebSocket(
    `ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}&subscribeAll=${subscribeAll}&api_key=${API_USER}:${API_PASSWORD}`,
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const events: Event[] = [];
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
  return { events, socket };
}

describe('Dial() bridges seen through the API', () => {
  let sb: RunningSwitchboard;
  let calleePort: number;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  before(async () => {
    calleePort = await freePort('udp');
    sb = await startSwitchboard({
      dialplan: `
exten => 400,1,Dial(SIP/local-phone/sip:bob@127.0.0.1:${calleePort},20)
 same => n,Hangup()
`,
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('lists the bridge with both channels, publishes its events and destroys it after the hangup', { timeout: 40_000 }, async () => {
    const { events, socket } = await listen(sb, APP, true);
    const phone = await listen(sb, PHONE_APP, false);
    const subscribed = await api('POST', `/applications/${PHONE_APP}/subscription?eventSource=endpoint:SIP/local-phone`);
    assert.equal(subscribed.status, 200);
    try {
      // The callee answers and hangs up after four seconds; the caller waits for our BYE.
      const callee = runSipp('uas-answer-talk-bye.xml', target(), {
        service: 'bob',
        keys: { rtpport: 4020 },
        extra: ['-p', String(calleePort)],
      });
      await sleep(300);
      const caller = runSipp('uac-wait-bye.xml', target(), { service: '400', keys: { rtpport: 4022 } });

      let bridges: BridgeJson[] = [];
      for (let i = 0; i < 60 && !(bridges.length === 1 && bridges[0]?.channels.length === 2); i++) {
        await sleep(50);
        bridges = (await (await api('GET', '/bridges')).json()) as BridgeJson[];
      }
      assert.equal(bridges.length, 1, `one bridge for the call: ${JSON.stringify(bridges)}`);
      const bridge = bridges[0] as BridgeJson;
      const channels = (await (await api('GET', '/channels')).json()) as Array<{ id: string }>;
      assert.deepEqual([...bridge.channels].sort(), channels.map((c) => c.id).sort(), 'both parties are in it');
      assert.equal(bridge.technology, 'simple_bridge');
      assert.equal(bridge.bridge_type, 'mixing');
      assert.equal(bridge.bridge_class, 'basic');
      assert.equal(bridge.creator, '');

      const one = await api('GET', `/bridges/${bridge.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(((await one.json()) as BridgeJson).channels, bridge.channels);
      // No application controls it: the API may not change it (409), and it stays as it was.
      const add = await api('POST', `/bridges/${bridge.id}/addChannel?channel=${bridge.channels[0]}`);
      assert.equal(add.status, 409);
      const destroy = await api('DELETE', `/bridges/${bridge.id}`);
      assert.equal(destroy.status, 409);
      assert.equal((await api('GET', `/bridges/${bridge.id}`)).status, 200);

      const [calleeResult, callerResult] = await Promise.all([callee, caller]);
      assert.equal(calleeResult.code, 0, calleeResult.stdout.slice(-2000));
      assert.equal(callerResult.code, 0, callerResult.stdout.slice(-2000));

      let left: BridgeJson[] = [bridge];
      for (let i = 0; i < 40 && left.length > 0; i++) {
        await sleep(50);
        left = (await (await api('GET', '/bridges')).json()) as BridgeJson[];
      }
      assert.deepEqual(left, [], 'the bridge is gone after the hangup');
      assert.equal((await api('GET', `/bridges/${bridge.id}`)).status, 404);

      for (let i = 0; i < 40 && !events.some((e) => e.type === 'BridgeDestroyed'); i++) await sleep(50);
      const about = events.filter((e) => e.bridge?.id === bridge.id);
      const types = about.map((e) => e.type);
      assert.equal(types[0], 'BridgeCreated', types.join(', '));
      assert.equal(types.at(-1), 'BridgeDestroyed', types.join(', '));
      const entered = about.filter((e) => e.type === 'ChannelEnteredBridge').map((e) => e.channel?.id);
      assert.deepEqual(entered.sort(), [...bridge.channels].sort(), 'each party entered');
      const entry = about.find((e) => e.type === 'ChannelEnteredBridge');
      assert.equal(entry?.bridge?.bridge_class, 'basic');
      const leftIds = about.filter((e) => e.type === 'ChannelLeftBridge').map((e) => e.channel?.id);
      assert.deepEqual(leftIds.sort(), [...bridge.channels].sort(), 'each party left');

      // The endpoint's subscriber sees its channels enter the bridge, but not the bridge's own events.
      const phoneTypes = phone.events.filter((e) => e.bridge?.id === bridge.id).map((e) => e.type);
      assert.equal(phoneTypes.filter((t) => t === 'ChannelEnteredBridge').length, 2, phoneTypes.join(', '));
      assert.equal(phoneTypes.filter((t) => t === 'ChannelLeftBridge').length, 2, phoneTypes.join(', '));
      assert.ok(!phoneTypes.includes('BridgeCreated') && !phoneTypes.includes('BridgeDestroyed'), phoneTypes.join(', '));
    } finally {
      socket.close();
      phone.socket.close();
    }
  });
});
