/**
 * npm `ari-client` builds itself from our api-docs (DESIGN: existing client libraries must work
 * unchanged). This drives it against a listening server: discovery, REST calls, and events over
 * its WebSocket, including its lookup of each event's model in events.json.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from './testing/harness.js';

type Operation = (params?: Record<string, unknown>) => Promise<unknown>;

interface AriChannelInstance {
  id: string;
  answer(): Promise<void>;
  play(params: { media: string }, playback?: unknown): Promise<{ id: string; state: string }>;
}

interface AriClient {
  system: Record<string, Operation>;
  channels: Record<string, Operation>;
  applications: Record<string, Operation>;
  playbacks: Record<string, Operation>;
  sounds: Record<string, Operation>;
  on(event: string, listener: (event: Record<string, unknown>, instance: AriChannelInstance) => void): void;
  start(apps: string | string[]): Promise<void>;
  stop(): void;
}

const require = createRequire(import.meta.url);
const ari = require('ari-client') as { connect(url: string, user: string, password: string): Promise<AriClient> };

describe('ari-client against our api-docs', () => {
  let h: Harness;
  let url: string;
  let client: AriClient;
  const log = console.log;

  before(async () => {
    h = await startHarness();
    const { port } = await h.server.listen('127.0.0.1', 0);
    url = `http://127.0.0.1:${port}`;
    // swagger-client prints a notice about swagger 1.1 on every load.
    console.log = () => undefined;
    try {
      client = await ari.connect(url, 'alice', 'secret');
    } finally {
      console.log = log;
    }
  });
  after(async () => {
    client?.stop();
    await h.close();
  });

  test('exposes each resource with its nicknames as methods', () => {
    for (const [resource, nicknames] of Object.entries({
      system: ['getInfo', 'ping'],
      channels: ['list', 'get', 'hangup', 'answer', 'play', 'playWithId'],
      applications: ['list', 'get'],
      playbacks: ['get', 'stop', 'control'],
      sounds: ['list', 'get'],
    })) {
      const methods = client[resource as 'system'];
      assert.ok(methods, `client.${resource}`);
      for (const nickname of nicknames) assert.equal(typeof methods[nickname], 'function', `${resource}.${nickname}`);
    }
  });

  test('REST calls go through', async () => {
    const pong = (await client.system.ping?.()) as { ping: string };
    assert.equal(pong.ping, 'pong');
    const info = (await client.system.getInfo?.({ only: 'system' })) as Record<string, unknown>;
    assert.deepEqual(Object.keys(info), ['system']);
    const sounds = (await client.sounds.list?.({ lang: 'en' })) as { id: string }[];
    assert.ok(sounds.some((s) => s.id === 'hello-world'));
    await assert.rejects(client.channels.get?.({ channelId: 'none' }) as Promise<unknown>);
  });

  test('events arrive and resolve to resource instances that can be controlled', async () => {
    await client.start('client-app');
    const started = new Promise<{ event: Record<string, unknown>; channel: AriChannelInstance }>((resolve) => {
      client.on('AppStart', (event, channel) => resolve({ event, channel }));
    });
    const channel = h.createChannel();
    h.enterApplication(channel, 'client-app', ['one']);
    const { event, channel: instance } = await started;
    assert.equal(event.application, 'client-app');
    assert.deepEqual(event.args, ['one']);
    assert.equal(instance.id, channel.id);
    await instance.answer();
    assert.equal(channel.state, 'Up');
    const playback = (await client.channels.play?.({ channelId: channel.id, media: 'sound:hello-world,digits:1' })) as {
      id: string;
      next_media_uri: string;
    };
    assert.equal(playback.next_media_uri, 'digits:1');
    const finished = new Promise<Record<string, unknown>>((resolve) => client.on('PlaybackFinished', (e) => resolve(e)));
    await client.playbacks.stop?.({ playbackId: playback.id });
    const done = (await finished) as { playback: { id: string; state: string } };
    assert.equal(done.playback.id, playback.id);
    assert.equal(done.playback.state, 'complete');
  });
});
