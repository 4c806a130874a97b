import type { SoundIndex } from '../sounds/sound-index.js';

/** A media URI split into its scheme and value (`sound:hello-world` → sound, hello-world). */
export interface MediaUri {
  scheme: string;
  value: string;
}

export const MEDIA_SCHEMES = ['sound', 'recording', 'tone', 'digits', 'number', 'characters', 'http', 'https'] as const;

export function parseMediaUri(uri: string): MediaUri | undefined {
  const colon = uri.indexOf(':');
  if (colon <= 0) return undefined;
  return { scheme: uri.slice(0, colon), value: uri.slice(colon + 1) };
}

export type ResolvedMedia = { ok: true; files: string[] } | { ok: false; error: string };

const DIGIT_SOUNDS: Record<string, string> = { '*': 'digits/star', '#': 'digits/pound' };
const CHARACTER_SOUNDS: Record<string, string> = { ...DIGIT_SOUNDS, '-': 'letters/dash', '.': 'letters/dot', '@': 'letters/at' };

/**
 * Turns one media URI into the sound files that make it up. Tones and stored recordings are
 * resolved in playable-media.ts, which calls this for everything else.
 */
export function resolveMedia(uri: string, language: string, sounds: SoundIndex): ResolvedMedia {
  const parsed = parseMediaUri(uri);
  if (!parsed) return { ok: false, error: `invalid media URI '${uri}'` };
  const ids = soundIdsFor(parsed);
  if ('error' in ids) return { ok: false, error: ids.error };
  const files: string[] = [];
  for (const id of ids.ids) {
    const file = sounds.resolve(id, language);
    if (!file) return { ok: false, error: `sound '${id}' not found` };
    files.push(file);
  }
  return { ok: true, files };
}

function soundIdsFor({ scheme, value }: MediaUri): { ids: string[] } | { error: string } {
  switch (scheme) {
    case 'sound':
      return value.length > 0 && !value.split('/').includes('..') ? { ids: [value] } : { error: 'invalid sound name' };
    case 'digits':
      return /^[0-9*#]+$/.test(value)
        ? { ids: [...value].map((d) => DIGIT_SOUNDS[d] ?? `digits/${d}`) }
        : { error: `invalid digits '${value}'` };
    case 'characters':
      return /^[a-zA-Z0-9*#.@-]+$/.test(value)
        ? { ids: [...value.toLowerCase()].map((c) => CHARACTER_SOUNDS[c] ?? (/[0-9]/.test(c) ? `digits/${c}` : `letters/${c}`)) }
        : { error: `invalid characters '${value}'` };
    case 'number': {
      if (!/^-?\d{1,12}$/.test(value)) return { error: `invalid number '${value}'` };
      return { ids: sayNumber(Number(value)) };
    }
    case 'http':
    case 'https':
      return { error: 'playing media from http is not implemented' };
    default:
      return { error: `media scheme '${scheme}' is not supported` };
  }
}

/** English number words as sound ids (digits/N for 0–20 and tens, hundred, thousand, million). */
export function sayNumber(n: number): string[] {
  if (n < 0) return ['digits/minus', ...sayNumber(-n)];
  if (n === 0) return ['digits/0'];
  const ids: string[] = [];
  const groups: [number, string][] = [
    [1_000_000_000, 'digits/billion'],
    [1_000_000, 'digits/million'],
    [1_000, 'digits/thousand'],
  ];
  let rest = n;
  for (const [size, word] of groups) {
    if (rest >= size) {
      ids.push(...sayBelowThousand(Math.floor(rest / size)), word);
      rest %= size;
    }
  }
  if (rest > 0) ids.push(...sayBelowThousand(rest));
  return ids;
}

function sayBelowThousand(n: number): string[] {
  const ids: string[] = [];
  if (n >= 100) {
    ids.push(`digits/${Math.floor(n / 100)}`, 'digits/hundred');
    n %= 100;
  }
  if (n > 20) {
    ids.push(`digits/${Math.floor(n / 10) * 10}`);
    n %= 10;
  }
  if (n > 0) ids.push(`digits/${n}`);
  return ids;
}
