/**
 * Turns the value of a `tone:` URI into tone segments: a tone name looked up in the request's
 * `;tonezone=` zone, else the target channel's own zone (its TONEZONE variable or its endpoint's
 * `tone_zone`, channel-tone-zone.ts), else the default zone of indications.conf; or a raw pattern.
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

  /**
   * `zone` is the target's own zone, used when the URI names none; a channel zone that
   * indications.conf does not define falls back to the default zone (a URI's zone must exist).
   */
  resolve(value: string, zone?: string): ResolvedTone {
    const { tone, zone: uriZone } = splitToneUri(value);
    if (tone.length === 0) return { ok: false, error: 'empty tone' };
    if (looksLikeTonePattern(tone)) return parseTonePattern(tone);
    const own = zone?.toLowerCase();
    const zoneName = (uriZone ?? (own !== undefined && this.#config.zones[own] ? own : undefined) ?? this.#config.country).toLowerCase();
    const toneZone = this.#config.zones[zoneName];
    if (!toneZone) return { ok: false, error: `tone zone '${zoneName}' is not defined` };
    const pattern = toneZone.tones[tone.toLowerCase()];
    if (pattern === undefined) return { ok: false, error: `tone '${tone}' is not defined in zone '${zoneName}'` };
    return parseTonePattern(pattern);
  }
}
