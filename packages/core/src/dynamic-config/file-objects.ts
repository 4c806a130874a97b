/**
 * Configuration objects read from files, shown as attribute/value tuples. They are read-only through
 * the API (SPEC §4.3 rule 2): the file is their backing storage and the API cannot write it.
 */
import type { SipConfig } from '../config/types.js';
import type { AudioCodecName } from '../media/media-engine.js';
import type { ConfigTupleRecord } from '../store/types.js';

/** Codecs under the names operators write in `allow` (pjsip.conf), not their RTP names. */
const OPERATOR_CODEC_NAMES: Readonly<Record<AudioCodecName, string>> = {
  PCMU: 'ulaw',
  PCMA: 'alaw',
  G722: 'g722',
  opus: 'opus',
  L16: 'slin16',
};

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const tuple = (attribute: string, value: string): ConfigTupleRecord => ({ attribute, value });

export function fileObject(sip: SipConfig, configClass: string, objectType: string, id: string): ConfigTupleRecord[] | undefined {
  if (configClass !== 'res_pjsip') return undefined;
  switch (objectType) {
    case 'endpoint': {
      const e = sip.endpoints.find((x) => x.name === id);
      if (!e) return undefined;
      const tuples = [
        tuple('type', 'endpoint'),
        tuple('context', e.context),
        tuple('allow', e.codecs.map((c) => OPERATOR_CODEC_NAMES[c]).join(',')),
      ];
      if (e.transport !== undefined) tuples.push(tuple('transport', e.transport));
      if (e.language !== undefined) tuples.push(tuple('language', e.language));
      if (e.callerId !== undefined) tuples.push(tuple('callerid', `"${e.callerId.name}" <${e.callerId.number}>`));
      tuples.push(tuple('aors', e.aors.join(',')));
      if (e.auth !== undefined) tuples.push(tuple('auth', e.auth));
      tuples.push(
        tuple('mailboxes', e.mailboxes.join(',')),
        tuple('dtmf_mode', e.dtmfMode),
        tuple('force_rport', yesNo(e.forceRport)),
        tuple('rewrite_contact', yesNo(e.rewriteContact)),
        tuple('rtp_symmetric', yesNo(e.rtpSymmetric)),
        tuple('direct_media', yesNo(e.directMedia)),
        tuple('allow_transfer', yesNo(e.allowTransfer !== false)),
      );
      if (e.rtpTimeout !== undefined) tuples.push(tuple('rtp_timeout', String(e.rtpTimeout)));
      if (e.rtpTimeoutHold !== undefined) tuples.push(tuple('rtp_timeout_hold', String(e.rtpTimeoutHold)));
      return tuples;
    }
    case 'aor': {
      const a = sip.aors.find((x) => x.name === id);
      if (!a) return undefined;
      return [
        tuple('type', 'aor'),
        tuple('max_contacts', String(a.maxContacts)),
        tuple('remove_existing', yesNo(a.removeExisting)),
        tuple('default_expiration', String(a.defaultExpiration)),
        tuple('minimum_expiration', String(a.minimumExpiration)),
        tuple('maximum_expiration', String(a.maximumExpiration)),
        tuple('qualify_frequency', String(a.qualifyFrequency)),
        ...a.contacts.map((c) => tuple('contact', c)),
      ];
    }
    case 'auth': {
      const a = sip.auths.find((x) => x.name === id);
      if (!a) return undefined;
      // The password is a secret: shown as present, never as its value.
      const tuples = [tuple('type', 'auth'), tuple('auth_type', a.authType), tuple('username', a.username), tuple('password', '')];
      if (a.realm !== undefined) tuples.push(tuple('realm', a.realm));
      return tuples;
    }
    case 'identify': {
      const i = sip.identifies.find((x) => x.name === id);
      if (!i) return undefined;
      return [tuple('type', 'identify'), tuple('endpoint', i.endpoint), ...i.match.map((m) => tuple('match', m))];
    }
    default:
      return undefined;
  }
}
