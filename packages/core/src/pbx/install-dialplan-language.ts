/**
 * Wires the services the dialplan's applications and functions need into a running core (DTMF from the bus, AstDB from the store, media
 * through ChannelMediaControl and the recording manager, device and extension states, the clock).
 */
import type { Channel } from '../channels/channel.js';
import { aggregateDeviceStates } from '../dialplan/hints.js';
import type { EventBus } from '../events/event-bus.js';
import type { MediaEngine } from '../media/media-engine.js';
import { channelRecordTarget } from '../recordings/record-targets.js';
import type { RecordingManager, TerminateOn } from '../recordings/recording-manager.js';
import type { AstDb } from '../store/astdb.js';
import type { Logger } from '../util/logger.js';
import type { SipEndpointConfig } from '../config/types.js';
import { ChannelVolumes } from './functions/volume.js';
import { routeTextMessage } from './message-routing.js';
import { playMusicToHeldParties } from './hold-music.js';
import type { BridgeRegistry } from '../bridges/bridge-registry.js';
import type { DialplanRunner } from './dialplan-runner.js';
import type { PbxMedia, PbxServices, RecordOptions } from './pbx-services.js';

export interface DialplanLanguageDeps {
  runner: DialplanRunner;
  bus: EventBus;
  media: MediaEngine;
  channelMedia: {
    sendDtmf(
      channel: Channel,
      dtmf: string,
      timing: { beforeMs: number; betweenMs: number; durationMs: number; afterMs: number },
    ): Promise<void>;
    startMoh(channel: Channel, mohClass: string | undefined): Promise<void>;
    stopMoh(channel: Channel): Promise<void>;
  };
  recordings: RecordingManager;
  channels: { list(): Channel[]; get(id: string): Channel | undefined };
  endpointDeviceState(name: string): string | undefined;
  hintDevices(context: string, exten: string): readonly string[] | undefined;
  astdb?: AstDb;
  now?: () => Date;
  log: Logger;
  /** Routes received text messages through the dialplan and sends MessageSend's. */
  textMessages?: {
    send(message: { to: string; from: string; body: string; variables: Record<string, string> }): Promise<void>;
  };
  endpoints?: () => readonly SipEndpointConfig[];
  defaultLanguage?: string;
  /** Core's bridges: the held party of a Dial() call hears music (hold-music.ts). */
  bridges?: Pick<BridgeRegistry, 'bridgeOf' | 'startMusic' | 'stopMusic'>;
}

export function installDialplanLanguage(deps: DialplanLanguageDeps): void {
  const { runner, bus } = deps;
  const volumes = new ChannelVolumes(deps.media, deps.log);
  runner.registerFunction('VOLUME', volumes.function);
  const controlled = new Map<string, string>();
  const absoluteTimers = new Map<string, NodeJS.Timeout>();
  bus.subscribe((event) => {
    switch (event.type) {
      case 'TextMessageReceived':
        if (event.endpoint !== undefined && deps.endpoints !== undefined && event.endpoint.technology === 'SIP') {
          void routeTextMessage(
            { runner, endpoints: deps.endpoints, defaultLanguage: deps.defaultLanguage ?? 'en', log: deps.log },
            event.endpoint.resource,
            event.message,
          ).catch((err: unknown) => deps.log.error({ err }, 'message dialplan failed'));
        }
        break;
      case 'ChannelDtmfReceived':
        runner.pbx.dtmf.push(event.channel.id, event.digit);
        break;
      case 'ChannelStateChange': {
        // A VOLUME set before the channel had media (a callee in a pre-dial handler) applies now.
        const channel = event.channel.state === 'Up' ? deps.channels.get(event.channel.id) : undefined;
        if (channel !== undefined) volumes.apply(channel);
        break;
      }
      case 'DeviceStateChanged':
        controlled.set(event.device_state.name, event.device_state.state);
        break;
      case 'ChannelDestroyed': {
        runner.pbx.shared.delete(event.channel.id);
        const timer = absoluteTimers.get(event.channel.id);
        if (timer) clearTimeout(timer);
        absoluteTimers.delete(event.channel.id);
        break;
      }
    }
  });

  const deviceState = (device: string) => deps.endpointDeviceState(device) ?? controlled.get(device) ?? 'UNKNOWN';
  const services: Partial<PbxServices> = {
    media: pbxMedia(deps),
    deviceState,
    extensionState: (context, exten) => {
      const devices = deps.hintDevices(context, exten);
      return devices === undefined ? 'UNKNOWN' : aggregateDeviceStates(devices.map(deviceState));
    },
    channelByName: (name) => deps.channels.list().find((c) => c.name === name && !c.isDestroyed),
    setAbsoluteTimeout: (channel, seconds) => {
      const existing = absoluteTimers.get(channel.id);
      if (existing) clearTimeout(existing);
      absoluteTimers.delete(channel.id);
      if (seconds <= 0) return;
      const timer = setTimeout(() => {
        absoluteTimers.delete(channel.id);
        deps.log.info({ channel: channel.name }, 'absolute timeout reached; hanging up');
        void channel.hangup();
      }, seconds * 1000);
      timer.unref();
      absoluteTimers.set(channel.id, timer);
    },
    ...(deps.astdb ? { astdb: deps.astdb } : {}),
    ...(deps.textMessages
      ? {
          messaging: {
            send: (to: string, from: string, body: string, variables: Record<string, string>) =>
              (deps.textMessages as NonNullable<DialplanLanguageDeps['textMessages']>).send({ to, from, body, variables }),
          },
        }
      : {}),
    ...(deps.now ? { now: deps.now } : {}),
  };
  runner.attachServices(services);
  if (deps.bridges !== undefined && deps.endpoints !== undefined) {
    playMusicToHeldParties({ bus, bridges: deps.bridges, endpoints: deps.endpoints, log: deps.log });
  }
}

function pbxMedia(deps: DialplanLanguageDeps): PbxMedia {
  return {
    sendDtmf: (channel, digits, durationMs) =>
      deps.channelMedia.sendDtmf(channel, digits, { beforeMs: 0, betweenMs: 100, durationMs, afterMs: 0 }),
    startMoh: (channel, mohClass) => deps.channelMedia.startMoh(channel, mohClass),
    stopMoh: (channel) => deps.channelMedia.stopMoh(channel),
    echo: (channel) => echo(deps.media, channel),
    record: (channel, options) => record(deps, channel, options),
  };
}

function untilHangup(channel: Channel): Promise<void> {
  return new Promise((resolve) => {
    if (channel.hangupSignal.aborted) resolve();
    else channel.hangupSignal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Echo(): the channel and a snoop leg hearing what its phone sends share a mixing bridge, so the
 * phone hears its own audio (the mix minus itself is the snoop leg's).
 */
async function echo(media: MediaEngine, channel: Channel): Promise<void> {
  const legId = channel.tech.mediaLegId;
  if (!legId) throw new Error('Echo: the channel has no media');
  const bridgeId = `echo-${channel.id}`;
  const ear = await media.createSnoopLeg({ sourceLegId: legId, spy: 'in', whisper: 'none' });
  try {
    await media.createBridge({ bridgeId, kind: 'mixing' });
    await media.joinBridge(bridgeId, legId);
    await media.joinBridge(bridgeId, ear.legId);
    await untilHangup(channel);
  } finally {
    await media.leaveBridge(bridgeId, legId).catch(() => undefined);
    await media.destroyBridge(bridgeId).catch(() => undefined);
    await media.destroyLeg(ear.legId).catch(() => undefined);
  }
}

async function record(
  deps: DialplanLanguageDeps,
  channel: Channel,
  options: RecordOptions,
): Promise<{ endedBy: 'silence' | 'dtmf' | 'max-duration' | 'hangup' | 'failed' }> {
  const done = new Promise<'finished' | 'failed'>((resolve) => {
    const unsubscribe = deps.bus.subscribe((event) => {
      if ((event.type === 'RecordingFinished' || event.type === 'RecordingFailed') && event.recording.name === options.name) {
        unsubscribe();
        resolve(event.type === 'RecordingFinished' ? 'finished' : 'failed');
      }
    });
  });
  const started = Date.now();
  try {
    deps.recordings.record(channelRecordTarget(channel), {
      name: options.name,
      format: options.format,
      maxDurationSeconds: options.maxDurationSeconds,
      maxSilenceSeconds: options.maxSilenceSeconds,
      ifExists: 'overwrite',
      beep: options.beep,
      terminateOn: options.terminateOn as TerminateOn,
    });
  } catch (err) {
    deps.log.warn({ err, name: options.name }, 'Record could not start');
    return { endedBy: 'failed' };
  }
  const outcome = await done;
  if (outcome === 'failed') return { endedBy: 'failed' };
  if (channel.isDestroyed) return { endedBy: 'hangup' };
  const elapsed = (Date.now() - started) / 1000;
  if (options.maxDurationSeconds > 0 && elapsed >= options.maxDurationSeconds - 0.5) return { endedBy: 'max-duration' };
  return { endedBy: options.maxSilenceSeconds > 0 ? 'silence' : 'dtmf' };
}
