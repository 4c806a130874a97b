/**
 * The highest rate a mixing bridge runs at. A bridge mixes at the highest native rate among its
 * members (8 kHz for G.711, 16 kHz for G.722, 48 kHz for Opus), capped here.
 *
 * Why this cap: measured with bench/media-mixing.mjs (see bench/README.md, "wideband" rows).
 */
import type { ResampleRate } from '../dsp/resampler.js';

export const MAX_MIX_RATE: ResampleRate = 48000;
