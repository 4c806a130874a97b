/**
 * Channel operations end to end: sipp calls the dialplan's App(demo), and an ari-client
 * application drives the channel — DTMF that arrives as RFC 4733 at a real RTP receiver, mute that
 * silences what the phone hears, hold events, a snoop channel that enters the application, and
 * channel variables.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent } from 'ari-client';
import { API_PASSWORD, API_USER, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { type ReceivedPacket, RtpReceiver, rms } from './rtp-receiver.js';

/** The telephone-event payload type the sipp offer uses (uac-wait-bye.xml). */
const TELEPHONE_EVENT_PT = 101;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('channel operations', () => {
  let sb: RunningSwitchboard;
  let client: AriClient;

  before(async () => {
    sb = await startSwitchboard();
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
    await client.start('demo');
  });

  after(async () => {
    client?.stop();
    await sb.stop();
  });

  /**
   * Places one sipp call into the application and runs `drive` on its channel; `drive` ends the
   * call by hanging up. Returns every event seen meanwhile and the RTP the phone received.
   */
  async function withCall(drive: (channel: AriChannel, events: AriEvent[], rtp: RtpReceiver) => Promise<void>) {
    const events: AriEvent[] = [];
    const record = (event: AriEvent) => events.push(event);
    let failure: unknown;
    let started = false;
    const onStart = (event: AriEvent, channel: AriChannel) => {
      if (started || !String((event.channel as { name: string }).name).startsWith('SIP/')) return;
      started = true;
      void drive(channel, events, rtp).catch(async (err: unknown) => {
        failure = err;
        await channel.hangup().catch(() => undefined);
      });
    };
    const rtp = await RtpReceiver.open();
    client.on('*', record);
    client.on('AppStart', onStart);
    try {
      const sipp = await runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '100', keys: { rtpport: rtp.port } },
      );
      if (failure) throw failure;
      assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
      return { events, packets: rtp.packets };
    } finally {
      client.removeListener('*', record);
      client.removeListener('AppStart', onStart);
      rtp.close();
    }
  }

  async function waitFor(events: AriEvent[], predicate: (e: AriEvent) => boolean, what: string): Promise<AriEvent> {
    for (let i = 0; i < 100; i++) {
      const found = events.find(predicate);
      if (found) return found;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}; saw ${events.map((e) => e.type).join(',')}`);
  }

  it('sendDTMF reaches the phone as RFC 4733 telephone events', { timeout: 60_000 }, async () => {
    const { packets } = await withCall(async (channel) => {
      await channel.answer();
      await client.channels.sendDTMF({ channelId: channel.id, dtmf: '1#', duration: 200, between: 100 });
      await sleep(1200);
      await channel.hangup();
    });
    const events = packets.filter((p) => p.payloadType === TELEPHONE_EVENT_PT);
    assert.ok(events.length > 0, `no telephone-event packets among ${packets.length}`);
    const digits = [...new Set(events.map((p) => p.payload[0]))];
    assert.deepEqual(digits, [1, 11], 'events 1 and # (11), in order');
    const ends = events.filter((p) => (p.payload[1] & 0x80) !== 0);
    assert.ok(ends.length >= 2, 'each digit has an end packet');
  });

  it('mute out silences what the phone hears until unmute', { timeout: 60_000 }, async () => {
    let mutedUntil = 0;
    const { packets } = await withCall(async (channel, events, rtp) => {
      await channel.answer();
      await client.channels.mute({ channelId: channel.id, direction: 'out' });
      const first = client.Playback();
      await channel.play({ media: 'sound:hello-world' }, first);
      await waitFor(events, (e) => e.type === 'PlaybackFinished' && (e.playback as { id: string }).id === first.id, 'first playback');
      mutedUntil = rtp.packets.length;
      await client.channels.unmute({ channelId: channel.id, direction: 'out' });
      const second = client.Playback();
      await channel.play({ media: 'sound:hello-world' }, second);
      await waitFor(events, (e) => e.type === 'PlaybackFinished' && (e.playback as { id: string }).id === second.id, 'second playback');
      await channel.hangup();
    });
    const audio = (list: ReceivedPacket[]) => list.filter((p) => p.payloadType === 0).map((p) => p.payload);
    const muted = audio(packets.slice(0, mutedUntil));
    const heard = audio(packets.slice(mutedUntil));
    assert.ok(heard.length > 20, `heard ${heard.length} packets after unmute`);
    assert.ok(muted.length === 0 || rms(muted) < 50, `muted audio has level ${muted.length ? rms(muted).toFixed(0) : 0}`);
    assert.ok(rms(heard) > 300, 'unmuted audio is not silence');
  });

  it('hold and unhold raise ChannelHold and ChannelUnhold', { timeout: 60_000 }, async () => {
    const { events } = await withCall(async (channel, seen) => {
      await channel.answer();
      await client.channels.hold({ channelId: channel.id });
      await waitFor(seen, (e) => e.type === 'ChannelHold', 'ChannelHold');
      await client.channels.unhold({ channelId: channel.id });
      await waitFor(seen, (e) => e.type === 'ChannelUnhold', 'ChannelUnhold');
      await channel.hangup();
    });
    const hold = events.find((e) => e.type === 'ChannelHold');
    assert.equal((hold?.channel as { state: string } | undefined)?.state, 'Up');
  });

  it('a snoop channel enters the application and goes away with the channel it snoops on', { timeout: 60_000 }, async () => {
    let snoopId = '';
    const { events } = await withCall(async (channel, seen) => {
      await channel.answer();
      const snoop = (await client.channels.snoopChannel({ channelId: channel.id, spy: 'in', app: 'demo', appArgs: 'listening' })) as {
        id: string;
        name: string;
      };
      snoopId = snoop.id;
      assert.match(snoop.name, new RegExp(`^Snoop/${channel.id.replace('.', '\\.')}-[0-9a-f]{8}$`));
      await waitFor(seen, (e) => e.type === 'AppStart' && (e.channel as { id: string }).id === snoopId, 'AppStart of the snoop channel');
      await channel.hangup();
      await waitFor(
        seen,
        (e) => e.type === 'ChannelDestroyed' && (e.channel as { id: string }).id === snoopId,
        'the snoop channel destroyed',
      );
    });
    const start = events.find((e) => e.type === 'AppStart' && (e.channel as { id: string }).id === snoopId);
    assert.deepEqual(start?.args, ['listening']);
    assert.equal((start?.channel as { state: string } | undefined)?.state, 'Up');
  });

  it('channel variables and functions through the API', { timeout: 60_000 }, async () => {
    const { events } = await withCall(async (channel) => {
      await channel.answer();
      await client.channels.setChannelVar({ channelId: channel.id, variable: 'GREETING', value: 'hi' });
      const value = (await client.channels.getChannelVar({ channelId: channel.id, variable: 'GREETING' })) as { value: string };
      assert.equal(value.value, 'hi');
      const caller = (await client.channels.getChannelVar({ channelId: channel.id, variable: 'CALLERID(name)' })) as { value: string };
      assert.equal(caller.value, 'SIPp Caller');
      await assert.rejects(client.channels.getChannelVar({ channelId: channel.id, variable: 'NOT_SET' }));
      const stats = (await client.channels.rtpstatistics({ channelId: channel.id })) as { channel_uniqueid: string };
      assert.equal(stats.channel_uniqueid, channel.id);
      await channel.hangup();
    });
    assert.ok(events.some((e) => e.type === 'ChannelVarset' && e.variable === 'GREETING' && e.value === 'hi'));
  });

  it('originate dials a phone and hands the answered channel to the application', { timeout: 60_000 }, async () => {
    const events: AriEvent[] = [];
    const record = (event: AriEvent) => events.push(event);
    const onStart = (event: AriEvent, channel: AriChannel) => {
      if ((event.channel as { id: string }).id === 'originated-1') setTimeout(() => void channel.hangup().catch(() => undefined), 500);
    };
    client.on('*', record);
    client.on('AppStart', onStart);
    const rtp = await RtpReceiver.open();
    const phonePort = await freePort('udp');
    try {
      // The phone answers after ringing and waits for our BYE. `-p` fixes its port for the dial string.
      const phone = runSipp(
        'uas-answer-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        {
          service: 'bob',
          keys: { rtpport: rtp.port },
          extra: ['-p', String(phonePort)],
        },
      );
      await sleep(500);
      const channel = (await client.channels.originate({
        endpoint: `PJSIP/local-phone/sip:bob@127.0.0.1:${phonePort}`,
        app: 'demo',
        appArgs: 'outbound,call',
        channelId: 'originated-1',
        variables: { FROM_API: 'yes', COUNT: 3 },
      })) as { id: string; state: string };
      assert.equal(channel.id, 'originated-1');
      assert.equal(channel.state, 'Down');
      const sipp = await phone;
      assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);
      await waitFor(events, (e) => e.type === 'ChannelDestroyed' && (e.channel as { id: string }).id === 'originated-1', 'the hangup');
      const mine = events.filter(
        (e) =>
          (e.channel as { id?: string } | undefined)?.id === 'originated-1' ||
          (e.peer as { id?: string } | undefined)?.id === 'originated-1',
      );
      const types = mine.map((e) => e.type);
      assert.ok(types.indexOf('ChannelVarset') < types.indexOf('AppStart'), `subscribed before the answer: ${types.join(',')}`);
      const statuses = mine.filter((e) => e.type === 'Dial').map((e) => e.dialstatus);
      assert.deepEqual(statuses.slice(-2), ['RINGING', 'ANSWER']);
      const start = mine.find((e) => e.type === 'AppStart');
      assert.deepEqual(start?.args, ['outbound', 'call']);
      assert.equal((start?.channel as { state: string } | undefined)?.state, 'Up');
      assert.ok(types.includes('AppEnd'));
    } finally {
      client.removeListener('*', record);
      client.removeListener('AppStart', onStart);
      rtp.close();
    }
  });

  it('externalMedia sends a playback to the external host as RTP', { timeout: 30_000 }, async () => {
    const events: AriEvent[] = [];
    const record = (event: AriEvent) => events.push(event);
    client.on('*', record);
    const rtp = await RtpReceiver.open();
    try {
      const channel = (await client.channels.externalMedia({
        app: 'demo',
        external_host: `127.0.0.1:${rtp.port}`,
        format: 'ulaw',
        channelId: 'external-1',
      })) as { id: string; name: string; channelvars: Record<string, string> };
      assert.match(channel.name, /^UnicastRTP\/127\.0\.0\.1:\d+-[0-9a-f]{8}$/);
      assert.match(channel.channelvars.UNICASTRTP_LOCAL_PORT ?? '', /^\d+$/);
      await waitFor(events, (e) => e.type === 'AppStart' && (e.channel as { id: string }).id === 'external-1', 'AppStart');
      await client.channels.play({ channelId: 'external-1', media: 'sound:hello-world', playbackId: 'external-play' });
      await waitFor(events, (e) => e.type === 'PlaybackFinished' && (e.playback as { id: string }).id === 'external-play', 'the playback');
      await client.channels.hangup({ channelId: 'external-1' });
      const audio = rtp.packets.filter((p) => p.payloadType === 0);
      assert.ok(audio.length >= 30, `received ${audio.length} PCMU packets`);
      assert.ok(rms(audio.map((p) => p.payload)) > 300, 'the host hears the prompt');
    } finally {
      client.removeListener('*', record);
      rtp.close();
    }
  });

  it(
    'originate to Local/200@from-internal: ;2 runs the dialplan, ;1 enters the application and ends with it',
    {
      timeout: 30_000,
    },
    async () => {
      const events: AriEvent[] = [];
      const record = (event: AriEvent) => events.push(event);
      client.on('*', record);
      try {
        const channel = (await client.channels.originate({ endpoint: 'Local/200@from-internal', app: 'demo', channelId: 'local-1' })) as {
          name: string;
        };
        assert.match(channel.name, /^Local\/200@from-internal-[0-9a-f]{8};1$/);
        await waitFor(events, (e) => e.type === 'AppStart' && (e.channel as { id: string }).id === 'local-1', 'AppStart of ;1');
        // Extension 200 answers, plays hello-world and hangs up: ;1 follows.
        await waitFor(events, (e) => e.type === 'ChannelDestroyed' && (e.channel as { id: string }).id === 'local-1', ';1 destroyed');
        assert.ok(events.some((e) => e.type === 'Dial' && e.dialstatus === 'ANSWER'));
      } finally {
        client.removeListener('*', record);
      }
    },
  );
});
