/**
 * The configuration classes and object types the dynamic-configuration API can address, with the
 * attributes each accepts and how a value is checked. Names follow pjsip.conf, so an object created
 * through the API reads like one an operator would write.
 */
export type AttributeKind = 'string' | 'boolean' | 'unsigned' | 'list';

export type ObjectSchema = Readonly<Record<string, AttributeKind>>;

export const CONFIG_CLASSES: Readonly<Record<string, Readonly<Record<string, ObjectSchema>>>> = {
  res_pjsip: {
    endpoint: {
      type: 'string',
      context: 'string',
      allow: 'list',
      disallow: 'list',
      transport: 'string',
      language: 'string',
      callerid: 'string',
      aors: 'list',
      auth: 'string',
      mailboxes: 'list',
      dtmf_mode: 'string',
      force_rport: 'boolean',
      rewrite_contact: 'boolean',
      rtp_symmetric: 'boolean',
      direct_media: 'boolean',
      allow_transfer: 'boolean',
      rtp_timeout: 'unsigned',
      rtp_timeout_hold: 'unsigned',
    },
    aor: {
      type: 'string',
      max_contacts: 'unsigned',
      remove_existing: 'boolean',
      default_expiration: 'unsigned',
      minimum_expiration: 'unsigned',
      maximum_expiration: 'unsigned',
      qualify_frequency: 'unsigned',
      contact: 'list',
    },
    auth: { type: 'string', auth_type: 'string', username: 'string', password: 'string', realm: 'string' },
    identify: { type: 'string', endpoint: 'string', match: 'list' },
  },
};

const BOOLEAN = /^(yes|no|true|false|y|n|t|f|1|0|on|off)$/i;
const DTMF_MODES = ['rfc4733', 'info', 'inband', 'auto'];

/** Why a value is unusable, or undefined when it is fine. */
export function checkAttribute(schema: ObjectSchema, attribute: string, value: string): string | undefined {
  const kind = schema[attribute];
  if (kind === undefined) return `unknown attribute '${attribute}'`;
  if (attribute === 'type') return undefined;
  if (attribute === 'dtmf_mode' && !DTMF_MODES.includes(value)) return `dtmf_mode must be one of ${DTMF_MODES.join(', ')}`;
  switch (kind) {
    case 'boolean':
      return BOOLEAN.test(value) ? undefined : `${attribute} must be yes or no`;
    case 'unsigned':
      return /^\d+$/.test(value) ? undefined : `${attribute} must be an integer of at least 0`;
    default:
      return undefined;
  }
}
