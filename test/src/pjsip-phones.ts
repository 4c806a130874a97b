/**
 * pjsip.conf text for the end-to-end tests: a UDP transport on the test's port and phones that
 * register with a digest password, each named three times as operators write it (endpoint, aor,
 * and `<name>-auth`).
 */

export interface PhoneOptions {
  /** `allow =` of the endpoint (after `disallow = all` when `disallowAll`). */
  allow?: string;
  disallowAll?: boolean;
  /** Extra endpoint lines (`mailboxes = …`, `force_rport = yes`, …). */
  endpoint?: readonly string[];
  /** The aor's lines; by default one contact that a new registration replaces. */
  aor?: readonly string[];
}

const ONE_CONTACT = ['max_contacts = 1', 'remove_existing = yes'];

export function udpTransport(sipPort: number, lines: readonly string[] = []): string {
  return `[transport-udp]\ntype = transport\nprotocol = udp\nbind = 127.0.0.1:${sipPort}\n${lines.map((line) => `${line}\n`).join('')}`;
}

export function digestPhone(name: string, password: string, options: PhoneOptions = {}): string {
  const endpoint = [
    `[${name}]`,
    'type = endpoint',
    'context = from-internal',
    ...(options.disallowAll ? ['disallow = all'] : []),
    `allow = ${options.allow ?? 'ulaw'}`,
    `auth = ${name}-auth`,
    `aors = ${name}`,
    ...(options.endpoint ?? []),
  ];
  const auth = [`[${name}-auth]`, 'type = auth', 'auth_type = userpass', `username = ${name}`, `password = ${password}`];
  const aor = [`[${name}]`, 'type = aor', ...(options.aor ?? ONE_CONTACT)];
  return `\n${[endpoint, auth, aor].map((lines) => lines.join('\n')).join('\n\n')}\n`;
}

/** Phones as NAT-aware softphones are set up (G.711 both laws, rport and contact rewriting). */
export const NAT_PHONE: PhoneOptions = {
  disallowAll: true,
  allow: 'ulaw,alaw',
  endpoint: ['force_rport = yes', 'rewrite_contact = yes'],
};

/** The phones of this host, identified by address (no registration), as the shipped `local-phone`. */
export function localPhone(allow = 'ulaw'): string {
  return `
[local-phone]
type = endpoint
context = from-internal
disallow = all
allow = ${allow}

[local-phone]
type = identify
endpoint = local-phone
match = 127.0.0.1
`;
}

/** A phone the server calls at a fixed address (an aor with a static contact), e.g. a sipp UAS. */
export function staticContactPhone(name: string, port: number, allow = 'ulaw'): string {
  return `
[${name}]
type = endpoint
context = from-internal
disallow = all
allow = ${allow}
aors = ${name}

[${name}]
type = aor
contact = sip:${name}@127.0.0.1:${port}
`;
}
