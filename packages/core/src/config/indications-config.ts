/**
 * indications.conf: the tones of each country (tone zone), by name, as `tone:` media URIs use them.
 *
 *   [general]  country = us          the zone used when a request names none
 *   [us]       description = …       ringcadence = …  (kept, unused)
 *              dial = 350+440        busy = 480+620/500,0/500   … any name → a tone pattern
 *
 * Defaults (also when the file is missing): country = us, and the US zone below. A pattern that
 * does not parse is a ConfigError: a zone that cannot play its tones is useless at run time.
 */
import { ConfigError } from '../errors.js';
import { parseTonePattern } from '../playback/tone-pattern.js';
import type { Logger } from '../util/logger.js';
import type { IniDocument } from './ini.js';
import { applyOptions } from './option-table.js';
import type { IndicationsConfig, ToneZone } from './types.js';

/** The North American plan (ITU-T E.180 supplement 2), so tones work without a file. */
const US_ZONE: ToneZone = {
  description: 'United States / North America',
  tones: {
    dial: '350+440',
    busy: '480+620/500,0/500',
    ring: '440+480/2000,0/4000',
    congestion: '480+620/250,0/250',
    callwaiting: '440/300,0/10000',
    dialrecall: '!350+440/100,!0/100,!350+440/100,!0/100,!350+440/100,!0/100,350+440',
    record: '1400/500,0/15000',
    info: '!950/330,!1400/330,!1800/330,0',
    stutter: '!350+440/100,!0/100,!350+440/100,!0/100,!350+440/100,!0/100,350+440',
  },
};

export function defaultIndicationsConfig(): IndicationsConfig {
  return { country: 'us', zones: { us: { description: US_ZONE.description, tones: { ...US_ZONE.tones } } } };
}

const ZONE_ATTRIBUTES = new Set(['description', 'ringcadence', 'alias']);

export function readIndicationsConfig(doc: IniDocument | undefined, log: Logger): IndicationsConfig {
  if (!doc) return defaultIndicationsConfig();
  const config: IndicationsConfig = { country: 'us', zones: {} };
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name === 'general') {
      applyOptions({
        section,
        log,
        handlers: {
          country: (o) => {
            config.country = o.value.trim().toLowerCase();
          },
        },
      });
      continue;
    }
    const zone: ToneZone = config.zones[section.name.toLowerCase()] ?? { description: '', tones: {} };
    for (const option of section.options) {
      if (option.key === 'description') zone.description = option.value;
      else if (ZONE_ATTRIBUTES.has(option.key)) continue;
      else {
        const parsed = parseTonePattern(option.value);
        if (!parsed.ok) throw new ConfigError(option.file, option.line, parsed.error);
        zone.tones[option.key] = option.value.trim();
      }
    }
    config.zones[section.name.toLowerCase()] = zone;
  }
  if (!config.zones[config.country]) {
    log.warn({ country: config.country }, `indications.conf: country '${config.country}' has no zone; using the built-in US tones`);
    config.zones[config.country] = { description: US_ZONE.description, tones: { ...US_ZONE.tones } };
  }
  return config;
}
