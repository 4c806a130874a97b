/**
 * Call recording from the dialplan (MixMonitor): a snoop leg on the channel hears both directions
 * (what the phone says and what it hears, each with its volume factor) and the recording manager
 * writes it like any other recording, so the file lands under the recording directory, appears
 * among the stored recordings and its live recording is announced to applications watching the
 * channel (`target_uri` channel:{id}). `r()`/`t()` add one snoop leg per direction with its own file.
 *
 *   start ──► (b and not bridged: waiting) ──► recording ◄──► paused (b: the channel left its bridge)
 *                                                 │
 *              StopMixMonitor / hangup ───────────┴──► finished: snoop legs destroyed, command run
 */
import { execFile } from 'node:child_process';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Channel } from '../../../channels/channel.js';
import type { EventBus } from '../../../events/event-bus.js';
import type { MediaEngine, SnoopDirection } from '../../../media/media-engine.js';
import { recordingFile } from '../../../recordings/recording-paths.js';
import type { RecordingManager } from '../../../recordings/recording-manager.js';
import type { Logger } from '../../../util/logger.js';
import type { MixMonitorOptions } from './mixmonitor-options.js';

export interface MixMonitorRequest {
  /** `name.ext` relative to the recording directory, or an absolute path inside it. */
  file: string;
  options: MixMonitorOptions;
  /** A shell command run once the recording is finished (the original's third argument). */
  command?: string;
}

/** One monitored channel's recording, as the operator console and tests list it. */
export interface MixMonitorSnapshot {
  id: string;
  channel: string;
  /** Recording names (the mixed file first, then the r() and t() files). */
  recordings: string[];
  state: 'waiting' | 'recording' | 'paused' | 'finished';
  bridgedOnly: boolean;
}

export class MixMonitorError extends Error {}

export interface MixMonitorDeps {
  bus: EventBus;
  media: MediaEngine;
  recordings: RecordingManager;
  isBridged(channelId: string): boolean;
  log: Logger;
}

interface Part {
  recording: string;
  format: string;
  spy: SnoopDirection;
  legId?: string;
}

interface Monitor {
  id: string;
  channel: Channel;
  parts: Part[];
  request: MixMonitorRequest;
  state: MixMonitorSnapshot['state'];
  /** Recordings not finished yet; the monitor is finished when it is empty. */
  pending: Set<string>;
  unsubscribe: () => void;
}

let sequence = 0;

export class MixMonitorService {
  readonly #monitors = new Map<string, Monitor>();
  readonly #deps: MixMonitorDeps;

  constructor(deps: MixMonitorDeps) {
    this.#deps = deps;
  }

  /** Every monitor still running. */
  list(): MixMonitorSnapshot[] {
    return [...this.#monitors.values()].map((m) => ({
      id: m.id,
      channel: m.channel.name,
      recordings: m.parts.map((p) => p.recording),
      state: m.state,
      bridgedOnly: m.request.options.bridgedOnly,
    }));
  }

  /**
   * Starts recording the channel; resolves with the monitor's id and the mixed file's absolute path
   * (MIXMONITOR_FILENAME). A name outside the recording directory or an unknown format is refused.
   */
  async start(channel: Channel, request: MixMonitorRequest): Promise<{ id: string; file: string }> {
    if (!channel.tech.mediaLegId) throw new MixMonitorError('the channel has no media to record');
    const main = this.#recordingName(request.file);
    const parts: Part[] = [{ ...main, spy: 'both' }];
    if (request.options.receivedFile) parts.push({ ...this.#recordingName(request.options.receivedFile), spy: 'in' });
    if (request.options.transmittedFile) parts.push({ ...this.#recordingName(request.options.transmittedFile), spy: 'out' });
    sequence += 1;
    const monitor: Monitor = {
      id: `mixmon-${channel.id}-${sequence}`,
      channel,
      parts,
      request,
      state: 'waiting',
      pending: new Set(parts.map((p) => p.recording)),
      unsubscribe: () => undefined,
    };
    this.#monitors.set(monitor.id, monitor);
    monitor.unsubscribe = this.#deps.bus.subscribe((event) => {
      switch (event.type) {
        case 'ChannelEnteredBridge':
          if (event.channel.id === channel.id && request.options.bridgedOnly) void this.#resume(monitor);
          break;
        case 'ChannelLeftBridge':
          if (event.channel.id === channel.id && request.options.bridgedOnly) void this.#pause(monitor);
          break;
        case 'RecordingFinished':
        case 'RecordingFailed':
          if (monitor.pending.delete(event.recording.name) && monitor.pending.size === 0) void this.#finished(monitor);
          break;
      }
    });
    channel.onHangup(() => {
      if (monitor.state === 'waiting') void this.#finished(monitor);
    });
    if (!request.options.bridgedOnly || this.#deps.isBridged(channel.id)) await this.#begin(monitor);
    return { id: monitor.id, file: recordingFile(this.#deps.recordings.stored.root, main.recording, main.format) };
  }

  /** StopMixMonitor([id]): stops the given monitor of the channel, or all of them; returns how many. */
  async stop(channel: Channel, id?: string): Promise<number> {
    const targets = [...this.#monitors.values()].filter((m) => m.channel === channel && (id === undefined || id === '' || m.id === id));
    for (const monitor of targets) {
      if (monitor.state === 'waiting') {
        await this.#finished(monitor);
        continue;
      }
      for (const part of monitor.parts) {
        await this.#deps.recordings.stop(part.recording).catch(() => undefined);
      }
    }
    return targets.length;
  }

  #recordingName(file: string): { recording: string; format: string } {
    const root = this.#deps.recordings.stored.root;
    let name = file;
    if (isAbsolute(name)) {
      const rel = relative(root, resolve(name));
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new MixMonitorError(`${file} is outside the recording directory`);
      name = rel.split(sep).join('/');
    }
    const dot = name.lastIndexOf('.');
    const extension = dot > name.lastIndexOf('/') + 1 ? name.slice(dot + 1) : '';
    if (extension === '') return { recording: name, format: 'wav' };
    if (!this.#deps.recordings.formats.includes(extension)) throw new MixMonitorError(`unknown recording format '${extension}'`);
    return { recording: name.slice(0, dot), format: extension };
  }

  async #begin(monitor: Monitor): Promise<void> {
    const legId = monitor.channel.tech.mediaLegId;
    if (!legId || monitor.channel.isDestroyed) return;
    monitor.state = 'recording';
    const { heardGain, spokenGain, append } = monitor.request.options;
    for (const part of monitor.parts) {
      const snoop = await this.#deps.media.createSnoopLeg({
        sourceLegId: legId,
        spy: part.spy,
        whisper: 'none',
        spyGain: { in: spokenGain, out: heardGain },
      });
      part.legId = snoop.legId;
      try {
        this.#deps.recordings.record(
          {
            uri: `channel:${monitor.channel.id}`,
            media: { kind: 'leg', legId: snoop.legId },
            onGone: (hook) => monitor.channel.onHangup(() => hook()),
          },
          { name: part.recording, format: part.format, ifExists: append ? 'append' : 'overwrite' },
        );
      } catch (err) {
        monitor.pending.delete(part.recording);
        this.#deps.log.warn({ err, recording: part.recording }, 'MixMonitor could not start a recording');
      }
    }
    if (monitor.pending.size === 0) await this.#finished(monitor);
  }

  async #pause(monitor: Monitor): Promise<void> {
    if (monitor.state !== 'recording') return;
    monitor.state = 'paused';
    for (const part of monitor.parts) await this.#deps.recordings.pause(part.recording).catch(() => undefined);
  }

  async #resume(monitor: Monitor): Promise<void> {
    if (monitor.state === 'waiting') {
      await this.#begin(monitor);
      return;
    }
    if (monitor.state !== 'paused') return;
    monitor.state = 'recording';
    for (const part of monitor.parts) await this.#deps.recordings.unpause(part.recording).catch(() => undefined);
  }

  async #finished(monitor: Monitor): Promise<void> {
    if (monitor.state === 'finished') return;
    const recorded = monitor.state !== 'waiting';
    monitor.state = 'finished';
    monitor.unsubscribe();
    this.#monitors.delete(monitor.id);
    for (const part of monitor.parts) {
      if (part.legId) await this.#deps.media.destroyLeg(part.legId).catch(() => undefined);
    }
    const command = monitor.request.command;
    if (recorded && command) this.#run(command);
  }

  /** The command runs through the shell, as the original's does, in the recording directory. */
  #run(command: string): void {
    execFile('/bin/sh', ['-c', command], { cwd: this.#deps.recordings.stored.root, timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err) this.#deps.log.warn({ err, command, stderr }, 'MixMonitor command failed');
      else this.#deps.log.info({ command }, 'MixMonitor command ran');
    });
  }
}
