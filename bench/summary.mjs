#!/usr/bin/env node
// Prints the "Latest results" tables of bench/README.md from bench/results/*.json, so the README is
// updated from what was measured rather than retyped. Benchmarks without a result file are left out.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/dist/harness.js';

const load = (name) => {
  const file = join(REPO_ROOT, 'bench', 'results', `${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
};
const cell = (value) => (value === null || value === undefined ? '–' : String(value));
const table = (header, rows) =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
const mark = (ok) => (ok ? '✓' : '✗');

const out = [];
const when = (r) => `${r.when.slice(0, 16).replace('T', ' ')} UTC, load average ${cell(r.machine.loadavg_1m_at_start)} at start`;

for (const [name, unit] of [
  ['sipp-call-rate', 'call'],
  ['sipp-dial-rate', 'call'],
  ['sipp-register-rate', 'registration'],
]) {
  const r = load(name);
  if (!r) continue;
  out.push(`### ${name}\n\n${r.scenario}; ${r.step_seconds} s per step; ${when(r)}.\n`);
  out.push(
    table(
      [
        'offered /s',
        'ok / attempted',
        'failed %',
        'achieved /s',
        `server CPU ms per ${unit}`,
        'server CPU % of a core',
        'server RSS MiB',
        'machine busy %',
        'sustained',
      ],
      r.steps.map((s) => [
        s.rate,
        `${s.ok} / ${s.attempted}`,
        s.failed_pct,
        s.achieved_per_s,
        s.server_cpu_ms_per_call ?? s.server_cpu_ms_per_register,
        s.server_cpu_pct_of_one_core,
        s.server_rss_mib,
        s.machine_busy_pct,
        mark(s.sustained),
      ]),
    ),
  );
  out.push(`\nHighest sustained rate with < 0.1 % failures: **${cell(r.best_rate_cps ?? r.best_rate_per_s)}/s**.\n`);
}

const registerMemory = load('sipp-register-memory');
if (registerMemory) {
  const r = registerMemory;
  out.push(
    `### sipp-register-memory\n\n${r.scenario}; ${when(r)}; ${r.registrations_ok} / ${r.registrations_offered} registrations succeeded.\n`,
  );
  out.push(
    table(
      ['t (s)', 'phase', 'server RSS MiB'],
      r.samples.map((x) => [x.t_s, x.phase, x.rss_mib]),
    ),
  );
  out.push(`\nPeak RSS ${cell(r.peak_rss_mib)} MiB; growth from 35 s to the end of the load ${cell(r.rss_growth_after_35s_mib)} MiB.\n`);
}

const bridged = load('sipp-bridged-calls');
if (bridged) {
  out.push(`### sipp-bridged-calls\n\n${bridged.setup}; ${when(bridged)}.\n`);
  out.push(
    table(
      [
        'calls',
        'up: sipp / channels',
        'loss %',
        'recv dev p50 / p99 ms',
        'sender dev p99 ms',
        'added jitter p99 ms',
        'server CPU % of a core (media worker)',
        'CPU % per call',
        'RSS KiB per call',
        'far end CPU %',
        'machine busy %',
        'all ended',
        'loss / jitter ok',
      ],
      bridged.steps.map((s) => [
        s.calls,
        `${Math.min(s.caller_sipp_ok, s.callee_sipp_ok)} / ${s.channels_up}`,
        s.loss_pct,
        `${cell(s.recv_dev_ms_p50)} / ${cell(s.recv_dev_ms_p99)}`,
        s.send_dev_ms_p99,
        s.other_run_added_jitter_ms_p99 === undefined
          ? s.added_jitter_ms_p99
          : `${s.added_jitter_ms_p99} (other run ${s.other_run_added_jitter_ms_p99})`,
        `${cell(s.server_cpu_pct_of_one_core)} (${cell(s.server_media_worker_cpu_pct)})`,
        s.server_cpu_pct_per_call,
        s.server_rss_kib_per_call,
        s.far_end_cpu_pct,
        s.machine_busy_pct,
        mark(s.channels_left_after_hangup === 0),
        `${mark(s.loss_ok)} / ${mark(s.jitter_ok)}`,
      ]),
    ),
  );
  out.push(
    `\nMost calls with loss < 0.1 % and added jitter p99 < 5 ms: **${cell(bridged.best_calls)}**; with loss < 0.1 % alone: **${cell(bridged.best_calls_loss_only)}** (added jitter p99 ${cell(bridged.loss_only_added_jitter_ms_p99)} ms).\n`,
  );
}

const mediaTable = (steps, unit) =>
  table(
    [
      unit,
      'loss %',
      'recv dev p50 / p99 ms',
      'sender dev p99 ms',
      'added jitter p99 ms',
      'engine CPU % of a core',
      'CPU % per leg',
      'RSS KiB per leg',
      'far end CPU %',
      'machine busy %',
      'loss / jitter ok',
    ],
    steps.map((s) => [
      s[unit],
      s.loss_pct,
      `${cell(s.recv_dev_ms_p50)} / ${cell(s.recv_dev_ms_p99)}`,
      s.send_dev_ms_p99,
      s.other_run_added_jitter_ms_p99 === undefined
        ? s.added_jitter_ms_p99
        : `${s.added_jitter_ms_p99} (other run ${s.other_run_added_jitter_ms_p99})`,
      s.engine_cpu_pct_of_one_core,
      s.engine_cpu_pct_per_leg,
      s.rss_kib_per_leg,
      s.far_end_cpu_pct,
      s.machine_busy_pct,
      `${mark(s.loss_ok)} / ${mark(s.jitter_ok)}`,
    ]),
  );

for (const name of ['media-relay', 'media-transcode']) {
  const r = load(name);
  if (!r) continue;
  const best = r.best_calls ?? r.best_calls_per_worker;
  const lossOnly = r.best_calls_loss_only ?? r.best_calls_per_worker_loss_only;
  out.push(`### ${name}\n\n${r.setup}; ${r.step_seconds} s per step; ${when(r)}.\n`);
  out.push(mediaTable(r.steps, 'calls'));
  out.push(
    `\nMost calls with loss < 0.1 % and added jitter p99 < 5 ms: **${cell(best)}**; with loss < 0.1 % alone: **${cell(lossOnly)}** (added jitter p99 ${cell(r.loss_only_added_jitter_ms_p99)} ms).\n`,
  );
}

const mixing = load('media-mixing');
if (mixing) {
  out.push(`### media-mixing\n\n${mixing.setup}; ${mixing.step_seconds} s per step; ${when(mixing)}.\n`);
  for (const [layout, r] of Object.entries(mixing.layouts)) {
    out.push(`**${layout}**\n`);
    if (r.skipped) {
      out.push(`Skipped: ${r.skipped}.\n`);
      continue;
    }
    // The worker's own tick statistics (engine.getWorkerStats) when the run has them.
    if (r.steps.some((s) => s.ticks !== undefined)) {
      out.push(
        table(
          [
            'participants',
            'tick work p50 / p99 / max ms',
            'overruns (other run)',
            'skipped',
            'engine CPU % per leg',
            'loss %',
            'added jitter p99 ms',
            'no overrun',
          ],
          r.steps.map((s) => [
            s.participants,
            `${s.tick_ms_p50} / ${s.tick_ms_p99} / ${s.tick_ms_max}`,
            `${s.tick_overruns}${s.other_run_tick_overruns === undefined ? '' : ` (${s.other_run_tick_overruns})`} of ${s.ticks}`,
            s.tick_skipped,
            s.engine_cpu_pct_per_leg,
            s.loss_pct,
            s.added_jitter_ms_p99,
            mark(s.tick_ok),
          ]),
        ),
      );
      out.push(
        `\nMost participants without a tick overrun: **${cell(r.best_participants_no_overrun)}**; far ends: loss < 0.1 % and added jitter p99 < 5 ms: **${cell(r.best_participants)}**, loss < 0.1 % alone: **${cell(r.best_participants_loss_only)}**.\n`,
      );
      continue;
    }
    out.push(mediaTable(r.steps, 'participants'));
    out.push(
      `\nMost participants with loss < 0.1 % and added jitter p99 < 5 ms: **${cell(r.best_participants)}**; with loss < 0.1 % alone: **${cell(r.best_participants_loss_only)}** (added jitter p99 ${cell(r.loss_only_added_jitter_ms_p99)} ms).\n`,
    );
  }
}
console.log(out.join('\n'));
