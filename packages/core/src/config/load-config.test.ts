import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { INSTALLED_SOUNDS_DIR } from '../sounds/installed-sounds.js';
import { deriveEntityId, ENTITY_ID_PATTERN } from './entity-id.js';
import { DEFAULT_HTTP_LIMITS } from './http-config.js';
import { loadConfig } from './load-config.js';
import { recordingLogger } from './test-support.js';

const created: string[] = [];
after(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

function confDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-conf-'));
  created.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function assertConfigError(fn: () => unknown, file: string, line: number | undefined, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.equal(err.file, file);
    assert.equal(err.line, line);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('loadConfig', () => {
  it('uses the defaults when no file exists', () => {
    const dir = confDir({});
    const config = loadConfig(dir);
    assert.equal(config.confDir, dir);
    assert.deepEqual(config.http, { enabled: true, bindAddress: '127.0.0.1', bindPort: 8088, prefix: '', limits: DEFAULT_HTTP_LIMITS });
    assert.deepEqual(config.rtp, { rtpStart: 10000, rtpEnd: 20000, nativeSockets: true });
    assert.equal(config.general.systemName, hostname());
    assert.equal(config.general.defaultLanguage, 'en');
    assert.deepEqual(
      config.general.soundDirs,
      [resolve(dir, '..', 'sounds'), INSTALLED_SOUNDS_DIR],
      'the installation’s prompts come last',
    );
    assert.equal(config.general.recordingDir, resolve(dir, '..', 'recordings'));
    assert.equal(config.general.mediaWorkers, 0);
    assert.match(config.general.entityId, ENTITY_ID_PATTERN);
    assert.equal(loadConfig(dir).general.entityId, config.general.entityId, 'entity id is stable');
    assert.deepEqual(config.ari, {
      enabled: true,
      channelVars: [],
      allowedOrigins: [],
      users: [],
      websocketWriteTimeoutMs: 100,
      dialect: 'switchboard',
      resumeWindowSeconds: 60,
      resumeMaxEvents: 10_000,
      outboundWebsockets: [],
    });
    assert.deepEqual(config.sip, { transports: [], endpoints: [], identifies: [], aors: [], auths: [] });
    assert.deepEqual(config.dialplan, { contexts: [], globals: {} });
  });

  it('reads switchboard.conf, http.conf, ari.conf and rtp.conf', () => {
    const dir = confDir({
      'switchboard.conf':
        '[options]\nsystemname = pbx1\nentityid = 00:11:22:AA:BB:CC\ndefaultlanguage = fr\nmediaworkers = 2\nhighpriority = yes\n' +
        '[directories]\nsounds = ../s1, /abs/s2\nrecordings = rec\n',
      'http.conf': '[general]\nenabled = no\nbindaddr = 0.0.0.0\nbindport = 8089\nprefix = /switchboard/\n',
      'ari.conf':
        '[general]\nenabled = yes\nchannelvars = FOO, BAR\nallowed_origins = http://a.example\nwebsocket_write_timeout = 250\nresume_window = 5\nresume_max_events = 20\n' +
        '[alice]\ntype = user\npassword = secret\nread_only = on\n[bob]\ntype=user\npassword=$6$x\npassword_format=crypt\ndialect = switchboard\n' +
        '[general]\ndialect = Asterisk\n',
      'rtp.conf': '[general]\nrtpstart = 12000\nrtpend = 12100\nnative_sockets = no\n',
    });
    const config = loadConfig(dir);
    assert.deepEqual(config.general, {
      entityId: '00:11:22:aa:bb:cc',
      systemName: 'pbx1',
      defaultLanguage: 'fr',
      soundDirs: [resolve(dir, '../s1'), '/abs/s2', INSTALLED_SOUNDS_DIR],
      recordingDir: join(dir, 'rec'),
      mediaWorkers: 2,
      highPriority: true,
      store: { backend: 'sqlite' },
    });
    assert.deepEqual(config.http, {
      enabled: false,
      bindAddress: '0.0.0.0',
      bindPort: 8089,
      prefix: '/switchboard',
      limits: DEFAULT_HTTP_LIMITS,
    });
    assert.deepEqual(config.ari, {
      enabled: true,
      channelVars: ['FOO', 'BAR'],
      allowedOrigins: ['http://a.example'],
      websocketWriteTimeoutMs: 250,
      dialect: 'asterisk',
      resumeWindowSeconds: 5,
      resumeMaxEvents: 20,
      outboundWebsockets: [],
      users: [
        // alice takes [general]'s dialect, even from a [general] written after her section.
        { name: 'alice', password: 'secret', passwordFormat: 'plain', readOnly: true, dialect: 'asterisk' },
        { name: 'bob', password: '$6$x', passwordFormat: 'crypt', readOnly: false, dialect: 'switchboard' },
      ],
    });
    assert.deepEqual(config.rtp, { rtpStart: 12000, rtpEnd: 12100, nativeSockets: false });
  });

  it('reads pjsip.conf with one name used by several types', () => {
    const dir = confDir({
      'pjsip.conf': [
        '[udp]',
        'type = transport',
        'protocol = udp',
        'bind = 0.0.0.0',
        '[v6]',
        'type = transport',
        'bind = [::1]:5070',
        'external_media_address = 203.0.113.1',
        '[phone](!)',
        'type = endpoint',
        'context = from-internal',
        'disallow = all',
        'allow = ulaw,alaw',
        'transport = udp',
        '[alice](phone)',
        'callerid = "Alice A" <1001>',
        'auth = alice-auth',
        'aors = alice',
        'mailboxes = 1001@default',
        'dtmf_mode = info',
        'rtp_symmetric = yes',
        '[alice]',
        'type = aor',
        'max_contacts = 2',
        'remove_existing = yes',
        'contact = sip:alice@192.0.2.5:5060',
        '[alice-auth]',
        'type = auth',
        'auth_type = userpass',
        'username = alice',
        'password = pw',
        'realm = switchboard',
        '[alice]',
        'type = identify',
        'endpoint = alice',
        'match = 192.0.2.0/24, 10.1.1.1',
        'match = 2001:db8::/32',
        'match = 172.16.0.0/255.255.0.0',
      ].join('\n'),
    });
    const { sip } = loadConfig(dir);
    assert.deepEqual(sip.transports, [
      { name: 'udp', protocol: 'udp', bindAddress: '0.0.0.0', bindPort: 5060 },
      { name: 'v6', protocol: 'udp', bindAddress: '::1', bindPort: 5070, externalMediaAddress: '203.0.113.1' },
    ]);
    assert.deepEqual(sip.endpoints, [
      {
        name: 'alice',
        context: 'from-internal',
        codecs: ['PCMU', 'PCMA'],
        transport: 'udp',
        callerId: { name: 'Alice A', number: '1001' },
        auth: 'alice-auth',
        aors: ['alice'],
        mailboxes: ['1001@default'],
        dtmfMode: 'info',
        forceRport: true,
        rewriteContact: false,
        rtpSymmetric: true,
        directMedia: false,
      },
    ]);
    assert.deepEqual(sip.aors, [
      {
        name: 'alice',
        maxContacts: 2,
        removeExisting: true,
        defaultExpiration: 3600,
        minimumExpiration: 60,
        maximumExpiration: 7200,
        qualifyFrequency: 0,
        contacts: ['sip:alice@192.0.2.5:5060'],
      },
    ]);
    assert.deepEqual(sip.auths, [
      {
        name: 'alice-auth',
        authType: 'userpass',
        username: 'alice',
        password: 'pw',
        realm: 'switchboard',
        supportedAlgorithmsUas: ['MD5'],
      },
    ]);
    assert.deepEqual(sip.identifies, [
      { name: 'alice', endpoint: 'alice', match: ['192.0.2.0/24', '10.1.1.1', '2001:db8::/32', '172.16.0.0/16'] },
    ]);
  });

  it('processes allow/disallow in order and drops unsupported codecs with a warning', () => {
    const endpoint = (lines: string[]) => {
      const log = recordingLogger();
      const dir = confDir({ 'pjsip.conf': ['[e]', 'type = endpoint', ...lines].join('\n') });
      const codecs = loadConfig(dir, log).sip.endpoints[0].codecs;
      return { codecs, warnings: log.warnings().filter((w) => w.includes('codec')) };
    };
    assert.deepEqual(endpoint([]).codecs, ['PCMU', 'PCMA'], 'default when neither is written');
    assert.deepEqual(endpoint(['disallow = all', 'allow = alaw,ulaw']).codecs, ['PCMA', 'PCMU']);
    assert.deepEqual(endpoint(['allow = alaw']).codecs, ['PCMA'], 'allow replaces the default list');
    assert.deepEqual(endpoint(['allow = all', 'disallow = ulaw']).codecs, ['PCMA', 'G722', 'opus', 'L16']);
    assert.deepEqual(endpoint(['disallow = all', 'allow = ulaw:20', 'allow = !ulaw, alaw']).codecs, ['PCMA']);
    const withOpus = endpoint(['disallow = all', 'allow = opus,g722,slin,ulaw,g729,bogus']);
    assert.deepEqual(withOpus.codecs, ['opus', 'G722', 'L16', 'PCMU']);
    assert.equal(withOpus.warnings.length, 2);
    assert.match(withOpus.warnings[0], /g729.*not supported yet/);
    assert.match(withOpus.warnings[1], /bogus.*not a known codec/);
  });

  it('reads video codecs from allow/disallow as operators write them, and max_video_streams', () => {
    const endpoint = (lines: string[]) => {
      const log = recordingLogger();
      const dir = confDir({ 'pjsip.conf': ['[e]', 'type = endpoint', ...lines].join('\n') });
      const read = loadConfig(dir, log).sip.endpoints[0];
      return { audio: read.codecs, video: read.videoCodecs ?? [], warnings: log.warnings().filter((w) => /codec|video/.test(w)) };
    };
    const both = endpoint(['disallow = all', 'allow = ulaw,h264,vp8', 'allow = VP9,h263p,h263']);
    assert.deepEqual(both.audio, ['PCMU']);
    assert.deepEqual(both.video, ['H264', 'VP8', 'VP9', 'H263-1998', 'H263']);
    assert.deepEqual(both.warnings, [], 'video codec names are known, not warned about');
    assert.deepEqual(endpoint([]).video, [], 'no video unless a video codec is allowed');
    assert.deepEqual(endpoint(['allow = all']).video, [], '`all` means the audio codecs');
    assert.deepEqual(endpoint(['allow = vp8,h264', 'disallow = !h264, vp8']).video, ['H264']);
    assert.deepEqual(endpoint(['allow = vp8', 'disallow = all', 'allow = ulaw']).video, []);
    const streams = endpoint(['allow = ulaw,vp8', 'max_video_streams = 2']);
    assert.equal(streams.warnings.length, 1);
    assert.match(streams.warnings[0], /max_video_streams = 2.*one video stream/);
    assert.deepEqual(endpoint(['allow = ulaw,vp8', 'max_video_streams = 1']).warnings, []);
    assert.deepEqual(endpoint(['allow = ulaw,vp8', 'max_video_streams = 0']).video, [], '0 turns video off');
  });

  it('reads the digest algorithms an auth accepts, MD5 alone by default', () => {
    const auths = (lines: string[]) =>
      loadConfig(confDir({ 'pjsip.conf': ['[a]', 'type = auth', 'username = a', 'password = p', ...lines].join('\n') })).sip.auths[0];
    assert.deepEqual(auths([]).supportedAlgorithmsUas, ['MD5']);
    assert.deepEqual(auths(['supported_algorithms_uas = sha-256, md5']).supportedAlgorithmsUas, ['SHA-256', 'MD5']);
    assert.throws(() => auths(['supported_algorithms_uas = sha-512']), /MD5 and\/or SHA-256/);
  });

  it('reads session timer and outbound_auth options of an endpoint', () => {
    const dir = confDir({
      'pjsip.conf': [
        '[trunk]',
        'type = endpoint',
        'timers = required',
        'timers_min_se = 120',
        'timers_sess_expires = 600',
        'outbound_auth = trunk-auth',
        'subscribe_context = lamps',
        '[trunk-auth]',
        'type = auth',
        'username = acct',
        'password = pw',
        '[old]',
        'type = endpoint',
        'timers = forced',
      ].join('\n'),
    });
    const { sip } = loadConfig(dir);
    const trunk = sip.endpoints.find((e) => e.name === 'trunk');
    assert.equal(trunk?.timers, 'required');
    assert.equal(trunk?.timersMinSe, 120);
    assert.equal(trunk?.timersSessExpires, 600);
    assert.equal(trunk?.outboundAuth, 'trunk-auth');
    assert.equal(trunk?.subscribeContext, 'lamps');
    assert.equal(sip.endpoints.find((e) => e.name === 'old')?.timers, 'always');
  });

  it('reads media_encryption and media_encryption_optimistic of an endpoint', () => {
    const dir = confDir({
      'pjsip.conf': [
        '[desk]',
        'type = endpoint',
        'media_encryption = SDES',
        'media_encryption_optimistic = yes',
        '[plain]',
        'type = endpoint',
      ].join('\n'),
    });
    const { sip } = loadConfig(dir);
    const desk = sip.endpoints.find((e) => e.name === 'desk');
    assert.equal(desk?.mediaEncryption, 'sdes');
    assert.equal(desk?.mediaEncryptionOptimistic, true);
    assert.equal(sip.endpoints.find((e) => e.name === 'plain')?.mediaEncryption, undefined);
  });

  it('webrtc = yes implies the WebRTC media options; an option set in the section wins', () => {
    const dir = confDir({
      'pjsip.conf': [
        '[browser]',
        'type = endpoint',
        'webrtc = yes',
        '[kiosk]',
        'type = endpoint',
        'rtcp_mux = no',
        'webrtc = yes',
        'dtls_setup = active',
        'dtls_cert_file = certs/kiosk.pem',
        'dtls_private_key = certs/kiosk.key',
        '[ice-only]',
        'type = endpoint',
        'ice_support = yes',
      ].join('\n'),
    });
    const { sip } = loadConfig(dir);
    const browser = sip.endpoints.find((e) => e.name === 'browser');
    assert.deepEqual(
      {
        useAvpf: browser?.useAvpf,
        mediaEncryption: browser?.mediaEncryption,
        dtlsVerify: browser?.dtlsVerify,
        dtlsSetup: browser?.dtlsSetup,
        iceSupport: browser?.iceSupport,
        mediaUseReceivedTransport: browser?.mediaUseReceivedTransport,
        rtcpMux: browser?.rtcpMux,
      },
      {
        useAvpf: true,
        mediaEncryption: 'dtls',
        dtlsVerify: 'fingerprint',
        dtlsSetup: 'actpass',
        iceSupport: true,
        mediaUseReceivedTransport: true,
        rtcpMux: true,
      },
    );
    const kiosk = sip.endpoints.find((e) => e.name === 'kiosk');
    assert.equal(kiosk?.rtcpMux, false, 'set before webrtc = yes, still kept');
    assert.equal(kiosk?.dtlsSetup, 'active');
    assert.equal(kiosk?.dtlsCertFile, join(dir, 'certs/kiosk.pem'), 'resolved against the conf directory');
    assert.equal(kiosk?.dtlsPrivateKey, join(dir, 'certs/kiosk.key'));
    const iceOnly = sip.endpoints.find((e) => e.name === 'ice-only');
    assert.equal(iceOnly?.iceSupport, true);
    assert.equal(iceOnly?.mediaEncryption, undefined, 'no DTLS without webrtc or media_encryption');
  });

  it('reads outbound registrations', () => {
    const dir = confDir({
      'pjsip.conf': [
        '[udp]',
        'type = transport',
        '[provider-auth]',
        'type = auth',
        'username = acct',
        'password = pw',
        '[provider]',
        'type = registration',
        'server_uri = sip:sip.provider.example',
        'client_uri = sip:acct@sip.provider.example',
        'contact_user = 5551000',
        'outbound_auth = provider-auth',
        'transport = udp',
        'expiration = 600',
        'retry_interval = 30',
        '[minimal]',
        'type = registration',
        'server_uri = sip:10.0.0.1:5070',
        'client_uri = sip:me@10.0.0.1',
      ].join('\n'),
    });
    const { sip } = loadConfig(dir);
    assert.deepEqual(sip.registrations, [
      {
        name: 'provider',
        serverUri: 'sip:sip.provider.example',
        clientUri: 'sip:acct@sip.provider.example',
        contactUser: '5551000',
        outboundAuth: 'provider-auth',
        transport: 'udp',
        expiration: 600,
        retryInterval: 30,
        forbiddenRetryInterval: 0,
        maxRetries: 10,
      },
      {
        name: 'minimal',
        serverUri: 'sip:10.0.0.1:5070',
        clientUri: 'sip:me@10.0.0.1',
        expiration: 3600,
        retryInterval: 60,
        forbiddenRetryInterval: 0,
        maxRetries: 10,
      },
    ]);
  });

  it('stops on an invalid value, naming file and line', () => {
    const cases: [string, string, number, RegExp][] = [
      ['http.conf', '[general]\nenabled = yes\nbindport = abc\n', 3, /bindport = abc/],
      ['http.conf', '[general]\nbindport = 70000\n', 2, /1 to 65535/],
      ['http.conf', '[general]\nenabled = maybe\n', 2, /yes or no/],
      ['rtp.conf', '[general]\nrtpstart = 20000\nrtpend = 10000\n', 3, /greater than rtpend/],
      ['rtp.conf', '[general]\nnative_sockets = sometimes\n', 2, /yes or no/],
      ['ari.conf', '[u]\ntype = user\n', 1, /no password/],
      ['ari.conf', '[u]\ntype = admin\npassword = x\n', 2, /unknown type/],
      ['pjsip.conf', '[t]\ntype = transport\nbind = 0.0.0.0:x\n', 3, /1 to 65535/],
      ['pjsip.conf', '[t]\ntype = transport\nprotocol = sctp\n', 3, /expected one of/],
      ['pjsip.conf', '[e]\ntype = endpoint\n\ntransport = nosuch\n', 4, /transport that does not exist/],
      ['pjsip.conf', '[e]\ntype = endpoint\nauth = nosuch\n', 3, /auth that does not exist/],
      ['pjsip.conf', '[e]\ntype = endpoint\n[i]\ntype = identify\nendpoint = ghost\nmatch = 1.2.3.4\n', 5, /endpoint that does not exist/],
      ['pjsip.conf', '[x]\ntype = endpiont\n', 2, /unknown type/],
      ['pjsip.conf', '[x]\ncontext = a\n', 1, /no type/],
      ['pjsip.conf', '[i]\ntype = identify\nendpoint = i\nmatch = 10.0.0.0/33\n', 4, /prefix/],
      ['pjsip.conf', '[e]\ntype = endpoint\ndtmf_mode = morse\n', 3, /expected one of/],
      ['pjsip.conf', '[e]\ntype = endpoint\nmedia_encryption = maybe\n', 3, /expected one of no, sdes, dtls/],
      ['pjsip.conf', '[e]\ntype = endpoint\ntimers = sometimes\n', 3, /expected one of/],
      ['pjsip.conf', '[e]\ntype = endpoint\ndtls_setup = both\n', 3, /expected one of active, passive, actpass/],
      ['pjsip.conf', '[e]\ntype = endpoint\ndtls_fingerprint = md5\n', 3, /SHA-256 or SHA-1/],
      ['pjsip.conf', '[e]\ntype = endpoint\ntimers_min_se = 30\n', 3, /90 to 86400/],
      ['pjsip.conf', '[e]\ntype = endpoint\ntimers_min_se = 600\ntimers_sess_expires = 300\n', 4, /below timers_min_se/],
      ['pjsip.conf', '[e]\ntype = endpoint\noutbound_auth = nosuch\n', 3, /outbound_auth that does not exist/],
      ['pjsip.conf', '[r]\ntype = registration\nserver_uri = sip:a\n', 1, /needs server_uri and client_uri/],
      ['pjsip.conf', '[r]\ntype = registration\nserver_uri = sip:a\nclient_uri = sip:b@a\nline = yes\n', 1, /no endpoint/],
      [
        'pjsip.conf',
        '[r]\ntype = registration\nserver_uri = sip:a\nclient_uri = sip:b@a\nendpoint = ghost\n',
        5,
        /endpoint that does not exist/,
      ],
      ['pjsip.conf', '[r]\ntype = registration\nserver_uri = http://a\n', 3, /sip: or sips: URI/],
      [
        'pjsip.conf',
        '[r]\ntype = registration\nserver_uri = sip:a\nclient_uri = sip:b@a\noutbound_auth = x\n',
        5,
        /outbound_auth that does not exist/,
      ],
      ['pjsip.conf', '[a]\ntype = auth\nusername = a\n', 1, /no password/],
      ['pjsip.conf', '[a]\ntype = aor\nminimum_expiration = 9000\n', 3, /exceeds maximum_expiration/],
      ['pjsip.conf', '[e]\ntype = endpoint\n[e]\ntype = endpoint\n', 3, /defined twice/],
      ['switchboard.conf', '[options]\nentityid = nope\n', 2, /MAC-style/],
      ['extensions.conf', '[c]\nexten => 1,n,NoOp()\n', 2, /no previous priority/],
    ];
    for (const [name, text, line, pattern] of cases) {
      const dir = confDir({ [name]: text });
      assertConfigError(() => loadConfig(dir), join(dir, name), line, pattern);
    }
  });

  it('only warns about options, sections and types it does not implement', () => {
    const log = recordingLogger();
    const dir = confDir({
      'http.conf': '[general]\nenabled = yes\ntlsenable = no\n',
      'pjsip.conf':
        '[sys]\ntype = system\n[e]\ntype = endpoint\nfrom_user = me\n[i]\ntype = identify\nendpoint = e\nmatch = pbx.example.com\n',
      'rtp.conf': '[general]\nicesupport = no\n[other]\n',
    });
    const config = loadConfig(dir, log);
    assert.equal(config.sip.endpoints.length, 1);
    assert.deepEqual(config.sip.identifies[0].match, []);
    const warnings = log.warnings().join('\n');
    assert.match(warnings, /'tlsenable' in \[general\] is not supported yet/);
    assert.match(warnings, /type 'system' is not supported yet/);
    assert.match(warnings, /'from_user' in \[e\]/);
    assert.match(warnings, /host names are not supported yet/);
    assert.match(warnings, /'icesupport'/);
    assert.match(warnings, /\[other\] is not used/);
    assert.match(warnings, /endpoint 'e' uses context 'default', which extensions.conf does not define/);
  });

  it('loads the shipped conf directory', () => {
    const shipped = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../conf');
    const log = recordingLogger();
    const config = loadConfig(shipped, log);
    assert.deepEqual(log.warnings(), []);
    assert.deepEqual(config.http, { enabled: true, bindAddress: '127.0.0.1', bindPort: 8088, prefix: '', limits: DEFAULT_HTTP_LIMITS });
    assert.deepEqual(config.ari.users, [
      { name: 'switchboard', password: 'switchboard', passwordFormat: 'plain', readOnly: false, dialect: 'switchboard' },
    ]);
    assert.deepEqual(config.ari.channelVars, []);
    assert.deepEqual(config.rtp, { rtpStart: 10000, rtpEnd: 20000, nativeSockets: true });
    assert.deepEqual(config.sip.transports, [{ name: 'transport-udp', protocol: 'udp', bindAddress: '0.0.0.0', bindPort: 5060 }]);
    assert.deepEqual(
      config.sip.endpoints.map((e) => [e.name, e.context, e.codecs]),
      [
        ['local-phone', 'from-internal', ['PCMU', 'PCMA']],
        ['1001', 'from-internal', ['PCMU', 'PCMA']],
        ['1002', 'from-internal', ['PCMU', 'PCMA']],
      ],
    );
    assert.deepEqual(config.sip.global?.endpointIdentifierOrder, ['username', 'ip', 'anonymous']);
    assert.deepEqual(config.sip.identifies, [{ name: 'local-phone', endpoint: 'local-phone', match: ['127.0.0.1', '::1'] }]);
    assert.deepEqual(config.general.soundDirs, [resolve(shipped, '../sounds')]);
    const internal = config.dialplan.contexts.find((c) => c.name === 'from-internal');
    assert.ok(internal);
    assert.deepEqual(
      internal.extensions.slice(0, 3).map((e) => [e.pattern, e.priorities.map((p) => `${p.priority}:${p.app}(${p.appData})`)]),
      [
        ['100', ['1:App(demo)', '2:Hangup()']],
        ['200', ['1:Answer()', '2:Playback(hello-world)', '3:Hangup()']],
        ['_10XX', [`1:Dial(SIP/\${EXTEN},30)`, '2:Hangup()']],
      ],
    );
    assert.deepEqual(
      internal.extensions.slice(3).map((e) => e.pattern),
      ['300', '1', '2', 'i', 't'],
      'the IVR demo',
    );
    assert.ok(config.dialplan.contexts.some((c) => c.name === 'messages'));
  });
});

describe('deriveEntityId', () => {
  it('uses the first non-internal MAC, by interface name', () => {
    const iface = (mac: string, internal: boolean) => ({
      address: '192.0.2.1',
      netmask: '255.255.255.0',
      family: 'IPv4' as const,
      mac,
      internal,
      cidr: null,
    });
    const id = deriveEntityId(
      { lo: [iface('00:00:00:00:00:00', true)], eth1: [iface('AA:BB:CC:00:00:02', false)], eth0: [iface('aa:bb:cc:00:00:01', false)] },
      'host',
    );
    assert.equal(id, 'aa:bb:cc:00:00:01');
  });

  it('falls back to a stable, locally administered id from the host name', () => {
    const a = deriveEntityId({}, 'pbx1');
    assert.match(a, ENTITY_ID_PATTERN);
    assert.equal(deriveEntityId({}, 'pbx1'), a);
    assert.notEqual(deriveEntityId({}, 'pbx2'), a);
    assert.equal(Number.parseInt(a.slice(0, 2), 16) & 0x03, 0x02);
  });
});
