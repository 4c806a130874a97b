/**
 * Transfers seen from an application, against the real process and sipp phones with digest
 * authentication:
 * - a phone's REFER on a channel whose PJSIP_TRANSFER_HANDLING is ari-only becomes ChannelTransfer,
 *   and transfer_progress becomes the phone's sipfrag NOTIFYs;
 * - redirect: 302 Moved Temporarily for an unanswered call, REFER for an answered one (the channel
 *   ends when the phone reports success);
 * - without ari-only, a blind REFER in an application's bridge: a Local channel takes the
 *   transferer's place (AppStart replace_channel) and runs the extension; BridgeBlindTransfer;
 * - an attended transfer between two application bridges merges them (BridgeMerged);
 * - INVITE with Replaces for a channel in an application: the new channel enters the application
 *   (AppStart replace_channel) and the bridge, the replaced dialog gets BYE.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';

const APP = 'xfer';
const DIALPLAN = `
exten => 400,1,App(${APP})
 same => n,Hangup()
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
`;

function pjsipConf(sipPort: number): string {
  return [udpTransport(sipPort), digestPhone('alice', 'wonderland'), digestPhone('bob', 'builder'), digestPhone('carol', 'singer')].join(
    '\n',
  );
}

interface ChannelJson {
  id: string;
  name: string;
}

interface Event {
  type: string;
  channel?: ChannelJson;
  [field: string]: unknown;
}

interface EventStream {
  next(type: string, match?: (event: Event) => boolean): Promise<Event>;
  close(): void;
}

async function openEvents(sb: RunningSwitchboard): Promise<EventStream> {
  const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${APP}&subscribeAll=true&api_key=${API_USER}:${API_PASSWORD}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const events: Event[] = [];
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
  return {
    next: async (type, match = () => true) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const index = events.findIndex((e) => e.type === type && match(e));
        const found = events[index];
        if (found !== undefined) {
          events.splice(index, 1);
          return found;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ${type} event; got ${events.map((e) => e.type).join(', ')}`);
    },
    close: () => socket.close(),
  };
}

const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

describe('transfers and redirects through the API', () => {
  let sb: RunningSwitchboard;
  let events: EventStream;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort));
    await sb.restart();
    events = await openEvents(sb);
  });
  after(async () => {
    events.close();
    await sb.stop();
  });

  async function register(user: string, password: string): Promise<number> {
    const port = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: user,
      keys: { expires: 300 },
      extra: [...credentials(user, password), '-p', String(port)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    return port;
  }

  const started = async () => {
    const start = await events.next('AppStart');
    assert.ok(start.channel);
    return start.channel;
  };

  it(
    'PJSIP_TRANSFER_HANDLING ari-only: a REFER becomes ChannelTransfer; transfer_progress answers the phone',
    { timeout: 40_000 },
    async () => {
      const phone = runSipp('uac-auth-refer-ari.xml', target(), {
        service: '400',
        keys: { user: 'alice', rtpport: 4052, referto: '555' },
        extra: credentials('alice', 'wonderland'),
      });
      const channel = await started();
      const bridge = (await (await api('POST', '/bridges?type=mixing')).json()) as { id: string };
      assert.equal((await api('POST', `/channels/${channel.id}/answer`)).status, 204);
      assert.equal((await api('POST', `/bridges/${bridge.id}/addChannel?channel=${channel.id}`)).status, 204);
      const set = await api('POST', `/channels/${channel.id}/variable?variable=PJSIP_TRANSFER_HANDLING()&value=ari-only`);
      assert.equal(set.status, 204);
      // No transfer yet: nothing to report on.
      assert.equal((await api('POST', `/channels/${channel.id}/transfer_progress?states=channel_progress`)).status, 409);

      const transfer = await events.next('ChannelTransfer');
      const referTo = transfer.refer_to as { requested_destination: { destination?: string; protocol_id?: string } };
      const referredBy = transfer.referred_by as { source_channel: ChannelJson; bridge?: { id: string } };
      assert.equal(referTo.requested_destination.destination, '555');
      assert.equal(referTo.requested_destination.protocol_id, undefined);
      assert.equal(referredBy.source_channel.id, channel.id);
      assert.equal(referredBy.bridge?.id, bridge.id);

      assert.equal((await api('POST', `/channels/${channel.id}/transfer_progress?states=Channel_Answered`)).status, 204);
      const done = await phone;
      assert.equal(done.code, 0, done.stdout.slice(-3000));
      assert.equal((await api('DELETE', `/bridges/${bridge.id}`)).status, 204);
    },
  );

  it('redirect: an unanswered call gets 302 naming the target endpoint', { timeout: 40_000 }, async () => {
    await register('carol', 'singer');
    const phone = runSipp('uac-auth-redirected.xml', target(), {
      service: '400',
      keys: { user: 'alice', rtpport: 4054 },
      extra: credentials('alice', 'wonderland'),
    });
    const channel = await started();
    assert.equal((await api('POST', `/channels/${channel.id}/redirect?endpoint=SIP/carol`)).status, 204);
    await events.next('ChannelDestroyed', (e) => e.channel?.id === channel.id);
    const done = await phone;
    assert.equal(done.code, 0, done.stdout.slice(-3000));
  });

  it('redirect: an answered call is sent a REFER and ends when the phone reports success', { timeout: 40_000 }, async () => {
    await register('carol', 'singer');
    const phone = runSipp('uac-auth-redirect-refer.xml', target(), {
      service: '400',
      keys: { user: 'alice', rtpport: 4056 },
      extra: credentials('alice', 'wonderland'),
    });
    const channel = await started();
    assert.equal((await api('POST', `/channels/${channel.id}/answer`)).status, 204);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await api('POST', `/channels/${channel.id}/redirect?endpoint=SIP/carol`)).status, 204);
    await events.next('ChannelDestroyed', (e) => e.channel?.id === channel.id);
    const done = await phone;
    assert.equal(done.code, 0, done.stdout.slice(-3000));
  });

  it(
    'INVITE with Replaces for an application channel: AppStart replace_channel, the bridge, BYE to the old dialog',
    { timeout: 40_000 },
    async () => {
      const bobPort = await register('bob', 'builder');
      const phone = runSipp('uas-replace-call.xml', target(), {
        service: 'bob',
        keys: { user: 'bob', rtpport: 4058, rtpport2: 4060 },
        extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const originated = await api('POST', `/channels?endpoint=SIP/bob&app=${APP}`);
      assert.equal(originated.status, 200);
      const old = (await originated.json()) as ChannelJson;
      const start = await events.next('AppStart', (e) => e.channel?.id === old.id);
      assert.ok(start.channel);
      const bridge = (await (await api('POST', '/bridges?type=mixing')).json()) as { id: string };
      assert.equal((await api('POST', `/bridges/${bridge.id}/addChannel?channel=${old.id}`)).status, 204);

      const replacing = await events.next('AppStart', (e) => e.channel?.id !== old.id);
      assert.equal((replacing.replace_channel as ChannelJson | undefined)?.id, old.id);
      const newId = replacing.channel?.id ?? '';
      await events.next('ChannelEnteredBridge', (e) => e.channel?.id === newId && (e.bridge as { id: string }).id === bridge.id);
      await events.next('ChannelDestroyed', (e) => e.channel?.id === old.id);
      const done = await phone;
      assert.equal(done.code, 0, done.stdout.slice(-3000));
      await events.next('ChannelDestroyed', (e) => e.channel?.id === newId);
      assert.equal((await api('DELETE', `/bridges/${bridge.id}`)).status, 204);
    },
  );

  it(
    'blind REFER in an application bridge: a Local channel replaces the transferer and runs the extension',
    { timeout: 40_000 },
    async () => {
      const bobPort = await register('bob', 'builder');
      const bob = runSipp('uas-answer-wait-bye.xml', target(), {
        service: 'bob',
        keys: { rtpport: 4062 },
        extra: ['-p', String(bobPort)],
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const alice = runSipp('uac-auth-refer-ari.xml', target(), {
        service: '400',
        keys: { user: 'alice', rtpport: 4064, referto: '200' },
        extra: credentials('alice', 'wonderland'),
      });
      const transferer = await started();
      const originated = await api('POST', `/channels?endpoint=SIP/bob&app=${APP}`);
      assert.equal(originated.status, 200);
      const transferee = (await originated.json()) as ChannelJson;
      await events.next('AppStart', (e) => e.channel?.id === transferee.id);
      const bridge = (await (await api('POST', '/bridges?type=mixing')).json()) as { id: string };
      assert.equal((await api('POST', `/channels/${transferer.id}/answer`)).status, 204);
      const added = await api('POST', `/bridges/${bridge.id}/addChannel?channel=${transferer.id},${transferee.id}`);
      assert.equal(added.status, 204);

      const replacing = await events.next('AppStart', (e) => e.channel?.name.startsWith('Local/200@from-internal') === true);
      assert.equal((replacing.replace_channel as ChannelJson | undefined)?.id, transferer.id);
      const local = replacing.channel as ChannelJson;
      await events.next('ChannelEnteredBridge', (e) => e.channel?.id === local.id);
      const transfer = await events.next('BridgeBlindTransfer');
      assert.equal((transfer.channel as ChannelJson).id, transferer.id);
      assert.equal((transfer.replace_channel as ChannelJson).id, local.id);
      assert.equal((transfer.transferee as ChannelJson).id, transferee.id);
      assert.equal(transfer.exten, '200');
      assert.equal(transfer.context, 'from-internal');
      assert.equal(transfer.result, 'Success');
      assert.equal(transfer.is_external, true);
      assert.equal((transfer.bridge as { id: string }).id, bridge.id);

      const phone = await alice;
      assert.equal(phone.code, 0, phone.stdout.slice(-3000));
      // The extension answers, plays its prompt and hangs up: the Local channel leaves; bob stays.
      await events.next('ChannelDestroyed', (e) => e.channel?.id === local.id);
      const remaining = (await (await api('GET', `/bridges/${bridge.id}`)).json()) as { channels: string[] };
      assert.deepEqual(remaining.channels, [transferee.id]);
      assert.equal((await api('DELETE', `/channels/${transferee.id}`)).status, 204);
      const callee = await bob;
      assert.equal(callee.code, 0, callee.stdout.slice(-3000));
      assert.equal((await api('DELETE', `/bridges/${bridge.id}`)).status, 204);
    },
  );

  it('attended REFER between two application bridges merges them: BridgeMerged, BridgeAttendedTransfer', { timeout: 60_000 }, async () => {
    const alicePort = await register('alice', 'wonderland');
    const carolPort = await register('carol', 'singer');
    const alice = runSipp('uas-answer-wait-bye.xml', target(), {
      service: 'alice',
      keys: { rtpport: 4066 },
      extra: ['-p', String(alicePort)],
    });
    const carol = runSipp('uas-answer-wait-bye.xml', target(), {
      service: 'carol',
      keys: { rtpport: 4068 },
      extra: ['-p', String(carolPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bob = runSipp('uac-attended-transfer.xml', target(), {
      service: '400',
      keys: { user: 'bob', rtpport: 4070, rtpport2: 4072 },
      extra: credentials('bob', 'builder'),
    });
    const isBob = (e: Event) => e.channel?.name.startsWith('SIP/bob-') === true;
    /** Answers bob's call and bridges it with `peer`, originated into the application. */
    const connect = async (peer: string) => {
      const leg = (await events.next('AppStart', isBob)).channel as ChannelJson;
      assert.equal((await api('POST', `/channels/${leg.id}/answer`)).status, 204);
      const originated = await api('POST', `/channels?endpoint=SIP/${peer}&app=${APP}`);
      assert.equal(originated.status, 200);
      const other = (await originated.json()) as ChannelJson;
      await events.next('AppStart', (e) => e.channel?.id === other.id);
      const bridge = (await (await api('POST', '/bridges?type=mixing')).json()) as { id: string };
      assert.equal((await api('POST', `/bridges/${bridge.id}/addChannel?channel=${leg.id},${other.id}`)).status, 204);
      return { leg, other, bridge };
    };
    const first = await connect('alice');
    const second = await connect('carol');

    const merged = await events.next('BridgeMerged');
    assert.equal((merged.bridge as { id: string }).id, first.bridge.id);
    assert.equal((merged.bridge_from as { id: string }).id, second.bridge.id);
    const transfer = await events.next('BridgeAttendedTransfer');
    assert.equal((transfer.transferer_first_leg as ChannelJson).id, first.leg.id);
    assert.equal((transfer.transferer_second_leg as ChannelJson).id, second.leg.id);
    assert.equal((transfer.transferee as ChannelJson).id, first.other.id);
    assert.equal((transfer.transfer_target as ChannelJson).id, second.other.id);
    assert.equal((transfer.transferer_first_leg_bridge as { id: string }).id, first.bridge.id);
    assert.equal((transfer.transferer_second_leg_bridge as { id: string }).id, second.bridge.id);
    assert.equal(transfer.destination_type, 'bridge');
    assert.equal(transfer.destination_bridge, first.bridge.id);
    assert.equal(transfer.result, 'Success');
    assert.equal(transfer.is_external, true);

    const transferer = await bob;
    assert.equal(transferer.code, 0, transferer.stdout.slice(-4000));
    const joined = (await (await api('GET', `/bridges/${first.bridge.id}`)).json()) as { channels: string[] };
    assert.deepEqual([...joined.channels].sort(), [first.other.id, second.other.id].sort());
    for (const channel of [first.other, second.other]) assert.equal((await api('DELETE', `/channels/${channel.id}`)).status, 204);
    for (const phone of [await alice, await carol]) assert.equal(phone.code, 0, phone.stdout.slice(-3000));
    for (const bridge of [first.bridge, second.bridge]) assert.equal((await api('DELETE', `/bridges/${bridge.id}`)).status, 204);
  });
});
