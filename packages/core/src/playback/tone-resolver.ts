/**
 * Turns the value of a `tone:` URI into tone segments: a tone name looked up in the request's
 * `;tonezone=` zone or the default zone of indications.conf, or a raw pattern.
 */
import { defaultIndicationsConfig } from '../config/indications-config.js';
import type { IndicationsConfig } from '../config/types.js';
import type { ToneSegment } from '../media/media-engine.js';
import { looksLikeTonePattern, parseTonePattern, splitToneUri } from './tone-pattern.js';

export type ResolvedTone = { ok: true; segments: ToneSegment[] } | { ok: false; error: string };

export class ToneResolver {
  readonly #config: IndicationsConfig;

  constructor(config: IndicationsConfig = defaultIndicationsConfig()) {
    this.#config = config;
  }

  /** `zone` is the target's own zone, used when the URI names none. */
  resolve(value: string, zone?: string): ResolvedTone {
    const { tone, zone: uriZone } = splitToneUri(value);
    if (tone.length === 0) return { ok: false, error: 'empty tone' };
    if (looksLikeTonePattern(tone)) return parseTonePattern(tone);
    const zoneName = (uriZone ?? zone ?? this.#config.country).toLowerCase();
    const toneZone = this.#config.zones[zoneName];
    if (!toneZone) return { ok: false, error: `tone zone '${zoneName}' is not defined` };
    const pattern = toneZone.tones[tone.toLowerCase()];
    if (pattern === undefined) return { ok: false, error: `tone '${tone}' is not defined in zone '${zoneName}'` };
    return parseTonePattern(pattern);
  }
}
