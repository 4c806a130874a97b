/**
 * The highest rate a mixing bridge runs at. A bridge's rate is the highest native rate among its
 * members (8 kHz for G.711, 16 kHz for G.722, 48 kHz for Opus), capped here.
 *
 * Why 48 kHz and not 16 kHz: the bridge mixes per rate group (rate-mix.ts), so its resampling cost
 * is one streaming resampler per pair of rates present, whatever the number of members, and a
 * 48 kHz group costs a fixed ~0.13 ms per tick per conversion (8↔48 kHz: ~130 µs per 20 ms frame on
 * this machine, against ~45 µs for 8↔16 kHz). Measured with bench/media-mixing.mjs (medians of
 * three runs, bench/README.md): worker tick work p50 for a conference of one opus leg and N−1 PCMU
 * legs (48 kHz) against one G.722 leg and N−1 PCMU legs (16 kHz) and N PCMU legs (8 kHz) is
 * 2.8 / 2.4 / 1.8 ms at N = 100 and 1.5 / 0.9 / 0.45 ms at N = 25: the 48 kHz premium is well under
 * 1 ms of the 20 ms budget, and includes the opus codec itself. Before wideband mixing every opus
 * leg already resampled 48↔8 kHz in and out on its own, so no bridge pays more resampling at 48 kHz
 * than it did at 8 kHz unless it holds members of all three rates.
 */
import type { ResampleRate } from '../dsp/resampler.js';

export const MAX_MIX_RATE: ResampleRate = 48000;
