/**
 * The `formats` parameter of originate/create names formats the way operators do (`ulaw,alaw`);
 * the driver gets the media engine's codec names. A name we cannot carry is refused (400), as an
 * unknown format is in the reference.
 */
import { invalidArgument } from '../errors.js';
import type { AudioCodecName } from '../media/media-engine.js';

const FORMAT_CODECS: Readonly<Record<string, AudioCodecName>> = {
  ulaw: 'PCMU',
  alaw: 'PCMA',
  g722: 'G722',
  opus: 'opus',
  slin16: 'L16',
};

export const KNOWN_FORMATS: readonly string[] = Object.keys(FORMAT_CODECS);

export function parseFormats(names: readonly string[]): AudioCodecName[] {
  const codecs: AudioCodecName[] = [];
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    const codec = FORMAT_CODECS[name];
    if (!codec) throw invalidArgument(`Unknown format '${raw}'; known formats are ${KNOWN_FORMATS.join(', ')}`);
    if (!codecs.includes(codec)) codecs.push(codec);
  }
  if (codecs.length === 0) throw invalidArgument('formats names no format');
  return codecs;
}
