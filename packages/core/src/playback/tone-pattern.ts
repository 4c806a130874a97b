/**
 * Tone patterns in indications.conf syntax, as `tone:` media URIs carry them:
 *
 *   350+440            two frequencies summed, forever
 *   480+620/500,0/500  500 ms tone, 500 ms silence, repeated
 *   !350+440/100       `!`: played once, not repeated when the pattern loops
 *   425*50/1000        `*`: the first frequency amplitude-modulated by the second
 *   0/1000             silence for a second
 *
 * Asterisk also accepts `M` (MIDI note numbers) in place of frequencies; we do not, and say so.
 */
import type { ToneSegment } from '../media/media-engine.js';

/** Human hearing and 8 kHz sampling both end near 4 kHz; anything above cannot be played. */
const MAX_FREQUENCY_HZ = 4000;
const MAX_DURATION_MS = 600_000;

export type ParsedTone = { ok: true; segments: ToneSegment[] } | { ok: false; error: string };

export function parseTonePattern(pattern: string): ParsedTone {
  const text = pattern.trim();
  if (text.length === 0) return { ok: false, error: 'empty tone pattern' };
  const segments: ToneSegment[] = [];
  for (const raw of text.split(',')) {
    const parsed = parseSegment(raw.trim());
    if ('error' in parsed) return { ok: false, error: `invalid tone segment '${raw.trim()}': ${parsed.error}` };
    segments.push(parsed);
  }
  return { ok: true, segments };
}

function parseSegment(text: string): ToneSegment | { error: string } {
  let rest = text;
  const once = rest.startsWith('!');
  if (once) rest = rest.slice(1);
  if (/^m/i.test(rest)) return { error: 'MIDI note tones are not supported' };
  const slash = rest.indexOf('/');
  const freqText = slash >= 0 ? rest.slice(0, slash) : rest;
  const durationText = slash >= 0 ? rest.slice(slash + 1) : '0';
  if (!/^\d+$/.test(durationText)) return { error: 'duration must be a whole number of milliseconds' };
  const durationMs = Number(durationText);
  if (durationMs > MAX_DURATION_MS) return { error: `duration above ${MAX_DURATION_MS} ms` };
  const modulated = freqText.includes('*');
  const parts = freqText.split(modulated ? '*' : '+');
  if (parts.length > 2 || parts.some((p) => !/^\d+$/.test(p))) return { error: 'expected f, f1+f2 or f1*f2 with whole-number frequencies' };
  const numbers = parts.map(Number);
  if (numbers.some((f) => f > MAX_FREQUENCY_HZ)) return { error: `frequency above ${MAX_FREQUENCY_HZ} Hz` };
  // A frequency of 0 means silence; `0+0` is silence too.
  const frequencies = numbers.filter((f) => f > 0);
  const segment: ToneSegment = { frequencies, durationMs };
  if (modulated && frequencies.length === 2) segment.modulated = true;
  if (once) segment.once = true;
  return segment;
}

/**
 * The value of a `tone:` URI: a tone name or a pattern, optionally followed by `;tonezone=<zone>`.
 * A value made only of pattern characters is a pattern; anything else is a name.
 */
export function splitToneUri(value: string): { tone: string; zone?: string } {
  const semicolon = value.indexOf(';');
  if (semicolon < 0) return { tone: value };
  const tone = value.slice(0, semicolon);
  const zone = /(?:^|;)tonezone=([^;]*)/i.exec(value.slice(semicolon))?.[1];
  return zone ? { tone, zone } : { tone };
}

export function looksLikeTonePattern(tone: string): boolean {
  return /^[!0-9+*/,\s]+$/.test(tone) && /\d/.test(tone);
}
