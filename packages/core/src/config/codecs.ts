/**
 * `allow`/`disallow` in pjsip.conf endpoints, processed in the order written (`disallow = all`
 * then `allow = ulaw,alaw`), with codecs named the way operators name them. The order of `allow`
 * is the preference order offered in SDP.
 */
import type { AudioCodecName, VideoCodecName } from '../media/media-engine.js';
import type { Logger } from '../util/logger.js';
import type { IniOption } from './ini.js';
import { splitList } from './values.js';

/** Codecs the media engine can carry today, in default preference order (what `all` means). */
export const SUPPORTED_CODECS: readonly AudioCodecName[] = ['PCMU', 'PCMA', 'G722', 'opus', 'L16'];

/** An endpoint that names no codecs gets G.711, which every SIP phone speaks. */
export const DEFAULT_ENDPOINT_CODECS: readonly AudioCodecName[] = ['PCMU', 'PCMA'];

const CODEC_ALIASES: Record<string, AudioCodecName> = {
  ulaw: 'PCMU',
  mulaw: 'PCMU',
  pcmu: 'PCMU',
  g711u: 'PCMU',
  alaw: 'PCMA',
  pcma: 'PCMA',
  g711a: 'PCMA',
  g722: 'G722',
  opus: 'opus',
  slin: 'L16',
  l16: 'L16',
};

/**
 * Video codecs, forwarded between bridge participants without transcoding. An endpoint
 * negotiates video only when it allows one of these; `all` does not include them (it means every
 * audio codec), so existing configurations keep offering audio only.
 */
const VIDEO_CODEC_ALIASES: Record<string, VideoCodecName> = {
  h264: 'H264',
  vp8: 'VP8',
  vp9: 'VP9',
  h263: 'H263',
  h263p: 'H263-1998',
  'h263-1998': 'H263-1998',
};

/** Codec names Asterisk knows that we cannot carry yet: accepted with a warning, then dropped. */
const KNOWN_UNSUPPORTED = new Set([
  'g729',
  'gsm',
  'ilbc',
  'speex',
  'speex16',
  'speex32',
  'g726',
  'g726aal2',
  'adpcm',
  'lpc10',
  'g723',
  'g719',
  'siren7',
  'siren14',
  'codec2',
  'silk',
  'silk8',
  'silk12',
  'silk16',
  'silk24',
  'slin12',
  'slin16',
  'slin24',
  'slin32',
  'slin44',
  'slin48',
  'slin96',
  'slin192',
  'testlaw',
  'h261',
  'h265',
  'mpeg4',
  'red',
  't140',
  't140red',
  'jpeg',
  'png',
]);

/**
 * Applies one `allow` (allowing = true) or `disallow` option to the current codec list and returns
 * the new list. `all` adds or removes every supported codec; `!name` inverts the option, as in Asterisk.
 */
export function applyCodecOption(current: readonly AudioCodecName[], option: IniOption, allowing: boolean, log: Logger): AudioCodecName[] {
  let codecs = [...current];
  for (const item of splitList(option.value)) {
    const inverted = item.startsWith('!');
    const allow = inverted ? !allowing : allowing;
    // `ulaw:20` carries a packetisation time; we always use 20 ms, so the suffix is dropped.
    const name = (inverted ? item.slice(1) : item).split(':')[0].trim().toLowerCase();
    const targets = name === 'all' ? SUPPORTED_CODECS : CODEC_ALIASES[name] ? [CODEC_ALIASES[name]] : [];
    if (VIDEO_CODEC_ALIASES[name] !== undefined) continue; // applyVideoCodecOption's
    if (targets.length === 0) {
      const reason = KNOWN_UNSUPPORTED.has(name) ? 'is not supported yet' : 'is not a known codec';
      log.warn({ file: option.file, line: option.line, codec: name }, `codec '${name}' ${reason}; ignored in ${option.rawKey}`);
      continue;
    }
    for (const codec of targets) {
      if (allow && !codecs.includes(codec)) codecs.push(codec);
      if (!allow) codecs = codecs.filter((c) => c !== codec);
    }
  }
  return codecs;
}

/**
 * The video half of `allow`/`disallow`: applies the option's video codec names (in the order
 * written, which is the preference order) to the endpoint's video list; audio and unknown names
 * are left to applyCodecOption.
 */
export function applyVideoCodecOption(current: readonly VideoCodecName[], option: IniOption, allowing: boolean): VideoCodecName[] {
  let codecs = [...current];
  for (const item of splitList(option.value)) {
    const inverted = item.startsWith('!');
    const allow = inverted ? !allowing : allowing;
    const name = (inverted ? item.slice(1) : item).split(':')[0].trim().toLowerCase();
    const codec = VIDEO_CODEC_ALIASES[name];
    // `disallow = all` clears video too; `allow = all` adds audio codecs only (see above).
    if (name === 'all' && !allow) codecs = [];
    if (codec === undefined) continue;
    if (allow && !codecs.includes(codec)) codecs.push(codec);
    if (!allow) codecs = codecs.filter((c) => c !== codec);
  }
  return codecs;
}
