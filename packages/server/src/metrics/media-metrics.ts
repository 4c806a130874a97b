/**
 * Media metrics, read from the workers when scraped: tick work time p50/p99 and overruns per
 * worker (the window is the time since the previous scrape), and RTP packets, loss and jitter of
 * the live legs per worker. RTP counters accumulate each live leg's growth between scrapes; a leg
 * that ends between two scrapes loses only its packets since the last one.
 */
import type { MediaEngine } from '@switchboard/media';
import { Counter, Gauge, type Registry } from 'prom-client';

export function registerMediaMetrics(registry: Registry, media: MediaEngine): void {
  const tickP50 = new Gauge({
    name: 'switchboard_media_tick_p50_seconds',
    help: 'Median work time of one 20 ms media frame per worker, since the previous scrape',
    labelNames: ['worker'],
    registers: [registry],
  });
  const tickP99 = new Gauge({
    name: 'switchboard_media_tick_p99_seconds',
    help: '99th percentile work time of one 20 ms media frame per worker, since the previous scrape',
    labelNames: ['worker'],
    registers: [registry],
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
    help: 'RTP packets the far ends did not send us (sequence gaps) per worker',
    labelNames: ['worker'],
    registers: [registry],
  });
  const jitter = new Gauge({
    name: 'switchboard_rtp_jitter_seconds',
    help: 'Highest receive jitter (RFC 3550 §6.4.1) among the live legs of each worker',
    labelNames: ['worker'],
    registers: [registry],
  });
  const legs = new Gauge({
    name: 'switchboard_media_legs',
    help: 'Live RTP legs per worker',
    labelNames: ['worker'],
    registers: [registry],
  });
  const lastSeen = new Map<string, { tx: number; rx: number; lost: number }>();

  // One collector reads everything for the group (prom-client awaits a gauge's async collect).
  new Gauge({
    name: 'switchboard_media_workers',
    help: 'Media worker threads',
    registers: [registry],
    async collect() {
      let stats: Awaited<ReturnType<MediaEngine['getWorkerStats']>> = [];
      try {
        stats = await media.getWorkerStats({ reset: true });
      } catch {
        // The engine is closing: nothing to report.
      }
      this.set(stats.length);
      for (const s of stats) {
        const worker = String(s.workerIndex);
        tickP50.set({ worker }, s.tickMsP50 / 1000);
        tickP99.set({ worker }, s.tickMsP99 / 1000);
        overruns.inc({ worker }, s.overruns);
      }
      const perWorker = new Map<string, { legs: number; jitter: number }>();
      for (const s of stats) perWorker.set(String(s.workerIndex), { legs: 0, jitter: 0 });
      const live = new Set<string>();
      await Promise.all(
        media.legsByWorker().map(async ({ legId, workerIndex }) => {
          const worker = String(workerIndex);
          let rtp: Awaited<ReturnType<MediaEngine['getRtpStatistics']>>;
          try {
            rtp = await media.getRtpStatistics(legId);
          } catch {
            return; // The leg ended meanwhile.
          }
          live.add(legId);
          const before = lastSeen.get(legId) ?? { tx: 0, rx: 0, lost: 0 };
          packets.inc({ worker, direction: 'sent' }, Math.max(0, rtp.txcount - before.tx));
          packets.inc({ worker, direction: 'received' }, Math.max(0, rtp.rxcount - before.rx));
          lost.inc({ worker }, Math.max(0, rtp.rxploss - before.lost));
          lastSeen.set(legId, { tx: rtp.txcount, rx: rtp.rxcount, lost: rtp.rxploss });
          const entry = perWorker.get(worker) ?? { legs: 0, jitter: 0 };
          entry.legs += 1;
          entry.jitter = Math.max(entry.jitter, rtp.rxjitter ?? 0);
          perWorker.set(worker, entry);
        }),
      );
      for (const legId of lastSeen.keys()) if (!live.has(legId)) lastSeen.delete(legId);
      for (const [worker, entry] of perWorker) {
        legs.set({ worker }, entry.legs);
        // RTPstat jitter is in seconds already (the reference's rxjitter unit).
        jitter.set({ worker }, entry.jitter);
      }
    },
  });
}
