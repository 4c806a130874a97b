/**
 * features.conf: the DTMF codes of the in-call features Dial() enables with its option letters.
 *
 *   [general]     featuredigittimeout = 1000    ms to wait for the next digit of a longer code
 *                 transferdigittimeout = 3      s to wait for each digit of a blind transfer's extension
 *   [featuremap]  blindxfer = #                 t / T
 *                 disconnect = *                h / H
 *                 automixmon = *1               w / W and x / X (one-touch MixMonitor)
 *                 atxfer =                      t / T (attended transfer by DTMF: not built, refused with a warning)
 *                 parkcall =                    k / K (parking: not built, refused with a warning)
 *
 * The original's built-in codes are kept (`automon`, which names the Monitor() code there, is read
 * as `automixmon`: the server records calls only with MixMonitor). A code of anything but DTMF
 * digits is a ConfigError: a feature that can never be dialled is a mistake the operator wants to hear.
 */
import type { Logger } from '../util/logger.js';
import type { IniDocument, IniOption } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import type { FeatureName, FeaturesConfig } from './types.js';
import { invalid, parseInteger } from './values.js';

export function defaultFeaturesConfig(): FeaturesConfig {
  return {
    featureDigitTimeoutMs: 1000,
    transferDigitTimeoutMs: 3000,
    featureMap: { blindxfer: '#', disconnect: '*', automixmon: '*1', atxfer: '', parkcall: '' },
  };
}

function featureCode(option: IniOption): string {
  const code = option.value.trim();
  if (!/^[0-9A-D*#]*$/i.test(code)) throw invalid(option, 'a feature code is made of DTMF digits (0-9, A-D, * and #)');
  return code.toUpperCase();
}

export function readFeaturesConfig(doc: IniDocument | undefined, log: Logger): FeaturesConfig {
  const config = defaultFeaturesConfig();
  if (!doc) return config;
  const code = (name: FeatureName) => (option: IniOption) => {
    config.featureMap[name] = featureCode(option);
  };
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name === 'general') {
      applyOptions({
        section,
        log,
        handlers: {
          featuredigittimeout: (o) => {
            config.featureDigitTimeoutMs = parseInteger(o, 100, 60_000);
          },
          transferdigittimeout: (o) => {
            config.transferDigitTimeoutMs = parseInteger(o, 1, 600) * 1000;
          },
        },
      });
    } else if (section.name === 'featuremap') {
      applyOptions({
        section,
        log,
        handlers: {
          blindxfer: code('blindxfer'),
          disconnect: code('disconnect'),
          automixmon: code('automixmon'),
          automon: code('automixmon'),
          atxfer: code('atxfer'),
          parkcall: code('parkcall'),
        },
      });
    } else {
      warnUnsupportedSection(log, section);
    }
  }
  return config;
}
