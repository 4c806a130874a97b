/**
 * Technology names as clients write them. The SIP technology is `SIP`; `PJSIP` is accepted as an
 * alias (DESIGN "Naming") so applications written for the reference keep working.
 */
const ALIASES: Readonly<Record<string, string>> = { PJSIP: 'SIP' };

/** `pjsip` → `SIP`, `Local` → `LOCAL`: technologies compare case-insensitively. */
export function canonicalTechnology(technology: string): string {
  const upper = technology.toUpperCase();
  return ALIASES[upper] ?? upper;
}

/** `PJSIP/alice` → `SIP/alice`; a name without a technology is returned as it is. */
export function canonicalDeviceName(name: string): string {
  const slash = name.indexOf('/');
  if (slash <= 0) return name;
  return `${canonicalTechnology(name.slice(0, slash))}${name.slice(slash)}`;
}
