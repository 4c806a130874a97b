/**
 * Media metrics, read from the workers when scraped: tick work time p50/p99 and overruns per
 * worker (the window is the time since the previous scrape), and RTP packets, loss and jitter of
 * the live legs per worker. RTP counters accumulate each live leg's growth between scrapes; a leg
 * that ends between two scrapes loses only its packets since the last one.
 *
 * prom-client reads all metrics of a scrape concurrently, so the workers are asked once per
 * scrape by `refresh()` (metrics.ts calls it first) and every metric reads that one sample.
 */
import type { MediaEngine } from '@switchboard/media';
import { Counter, Gauge, type Registry } from 'prom-client';

type TickStats = Awaited<ReturnType<MediaEngine['getWorkerStats']>>[number];

interface WorkerSample {
  tick: TickStats;
  legs: number;
  /** Highest receive jitter of the worker's legs, seconds. */
  jitter: number;
  /** Packets since the previous sample. */
  sent: number;
  received: number;
  lost: number;
}

export interface MediaMetrics {
  /** Reads the workers; call before each scrape. */
  refresh(): Promise<void>;
}

export function registerMediaMetrics(registry: Registry, media: MediaEngine): MediaMetrics {
  let sample = new Map<string, WorkerSample>();
  const lastSeen = new Map<string, { tx: number; rx: number; lost: number }>();
  const each = (read: (worker: string, s: WorkerSample) => void) => {
    for (const [worker, s] of sample) read(worker, s);
  };

  new Gauge({
    name: 'switchboard_media_workers',
    help: 'Media worker threads',
    registers: [registry],
    collect() {
      this.set(sample.size);
    },
  });
  new Gauge({
    name: 'switchboard_media_tick_p50_seconds',
    help: 'Median work time of one 20 ms media frame per worker, since the previous scrape',
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      each((worker, s) => this.set({ worker }, s.tick.tickMsP50 / 1000));
    },
  });
  new Gauge({
    name: 'switchboard_media_tick_p99_seconds',
    help: '99th percentile work time of one 20 ms media frame per worker, since the previous scrape',
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      each((worker, s) => this.set({ worker }, s.tick.tickMsP99 / 1000));
    },
  });
  new Gauge({
    name: 'switchboard_media_worker_heap_used_bytes',
    help: "JavaScript heap in use by each media worker's isolate (the process's nodejs_heap_* metrics are the main thread's)",
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      each((worker, s) => this.set({ worker }, s.tick.heapUsedBytes));
    },
  });
  new Gauge({
    name: 'switchboard_media_worker_heap_total_bytes',
    help: "Size of each media worker's JavaScript heap, used or not",
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      each((worker, s) => this.set({ worker }, s.tick.heapTotalBytes));
    },
  });
  const overruns = new Counter({
    name: 'switchboard_media_tick_overruns_total',
    help: 'Media frames that took longer than their budget or started late, per worker',
    labelNames: ['worker'],
    registers: [registry],
  });
  const packets = new Counter({
    name: 'switchboard_rtp_packets_total',
    help: 'RTP packets of live legs per worker and direction (sent, received)',
    labelNames: ['worker', 'direction'],
    registers: [registry],
  });
  const lost = new Counter({
    name: 'switchboard_rtp_packets_lost_total',
    help: 'RTP packets the far ends sent that never arrived (sequence gaps), per worker',
    labelNames: ['worker'],
    registers: [registry],
  });
  new Gauge({
    name: 'switchboard_rtp_jitter_seconds',
    help: 'Highest receive jitter (RFC 3550 §6.4.1) among the live legs of each worker',
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      each((worker, s) => this.set({ worker }, s.jitter));
    },
  });
  new Gauge({
    name: 'switchboard_media_legs',
    help: 'Live RTP legs per worker',
    labelNames: ['worker'],
    registers: [registry],
    collect() {
      each((worker, s) => this.set({ worker }, s.legs));
    },
  });

  return {
    async refresh() {
      let stats: TickStats[] = [];
      try {
        stats = await media.getWorkerStats({ reset: true });
      } catch {
        // The engine is closing: nothing to report.
      }
      const next = new Map<string, WorkerSample>();
      for (const tick of stats) next.set(String(tick.workerIndex), { tick, legs: 0, jitter: 0, sent: 0, received: 0, lost: 0 });
      const live = new Set<string>();
      await Promise.all(
        media.legsByWorker().map(async ({ legId, workerIndex }) => {
          const entry = next.get(String(workerIndex));
          if (entry === undefined) return;
          let rtp: Awaited<ReturnType<MediaEngine['getRtpStatistics']>>;
          try {
            rtp = await media.getRtpStatistics(legId);
          } catch {
            return; // The leg ended meanwhile.
          }
          live.add(legId);
          const before = lastSeen.get(legId) ?? { tx: 0, rx: 0, lost: 0 };
          entry.sent += Math.max(0, rtp.txcount - before.tx);
          entry.received += Math.max(0, rtp.rxcount - before.rx);
          entry.lost += Math.max(0, rtp.rxploss - before.lost);
          lastSeen.set(legId, { tx: rtp.txcount, rx: rtp.rxcount, lost: rtp.rxploss });
          entry.legs += 1;
          // RTPstat jitter is in seconds (the reference's rxjitter unit).
          entry.jitter = Math.max(entry.jitter, rtp.rxjitter ?? 0);
        }),
      );
      for (const legId of lastSeen.keys()) if (!live.has(legId)) lastSeen.delete(legId);
      for (const [worker, s] of next) {
        overruns.inc({ worker }, s.tick.overruns);
        packets.inc({ worker, direction: 'sent' }, s.sent);
        packets.inc({ worker, direction: 'received' }, s.received);
        lost.inc({ worker }, s.lost);
      }
      sample = next;
    },
  };
}
