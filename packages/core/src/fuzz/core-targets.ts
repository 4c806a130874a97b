/**
 * Fuzz targets of core: the INI reader (every conf file), the dialplan reader, ari.conf/acl.conf
 * and pjsip.conf on top of it. A ConfigError is the expected refusal; anything else is a bug.
 */
import fc from 'fast-check';
import { readAclConfig } from '../config/acl-config.js';
import { readAriConfig } from '../config/ari-config.js';
import { type IniFileSource, parseIni } from '../config/ini.js';
import { readSipConfig } from '../config/pjsip-config.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import type { FuzzInput, FuzzTarget } from './engine.js';

const NO_FILES: IniFileSource = { readFile: () => undefined, listDir: () => [] };

function expectingConfigErrors(run: () => void): void {
  try {
    run();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
  }
}

const b = (text: string): FuzzInput => Buffer.from(text, 'utf8');

const INI_SEEDS = [
  b('[general]\nenabled = yes\n; comment\n[t](!)\nkey = value\n[s](t)\nkey => other\n'),
  b(
    '[alice]\ntype = endpoint\ncontext = internal\nallow = ulaw,alaw\nauth = alice-auth\naors = alice\n\n[alice-auth]\ntype = auth\nauth_type = userpass\nusername = alice\npassword = x\n\n[alice]\ntype = aor\nmax_contacts = 1\n[t]\ntype = transport\nprotocol = tcp\nbind = 127.0.0.1:5060\nmax_connections_per_address = 4\n[g]\ntype = global\noverload_max_loop_lag = 100\nauth_max_failures = 3\n',
  ),
  b('[u]\ntype = user\npassword = p\nacl = office\npermit = 10.0.0.0/8\ndeny = 10.1.0.0/255.255.0.0\n'),
];

const DIALPLAN_SEEDS = [
  b(
    '[globals]\nFOO = bar\n[internal]\nexten => 100,1,Answer()\n same => n(loop),Playback(hello-world)\n same => n,Goto(loop)\nexten => _X.,1,Dial(SIP/$' +
      '{EXTEN},20)\ninclude => other\n[other]\nexten => s,1,Hangup()\n',
  ),
];

const iniLine = fc.oneof(
  fc.constantFrom('[general]', '[x](!)', '[y](x)', ';c', '/* block', '*/', '#include other.conf', ''),
  fc
    .tuple(
      fc.constantFrom('type', 'password', 'permit', 'deny', 'acl', 'exten', 'same', 'include', 'bind', 'protocol'),
      fc.constantFrom(' = ', ' => ', '='),
      fc.string(),
    )
    .map(([key, sep, value]) => `${key}${sep}${value}`),
);
const iniText = fc.array(iniLine, { maxLength: 30 }).map((lines) => b(lines.join('\n')));

export const coreFuzzTargets: readonly FuzzTarget[] = [
  {
    name: 'core/ini',
    seeds: INI_SEEDS,
    regressions: [],
    dictionary: ['\n', '[', ']', '(!)', '=', '=>', ';', '/*', '*/', '#include ', '\uFEFF', '\r\n'],
    arbitrary: iniText,
    check(input) {
      expectingConfigErrors(() => parseIni(input.toString('utf8'), '/fuzz/test.conf', { source: NO_FILES }));
    },
  },
  {
    name: 'core/conf-readers',
    seeds: INI_SEEDS,
    regressions: [],
    dictionary: [
      'type = user\n',
      'type = endpoint\n',
      'type = transport\n',
      'type = global\n',
      'permit = ',
      'deny = ',
      '/',
      '::',
      '255.255.255.255',
      '99999999999',
    ],
    arbitrary: iniText,
    check(input) {
      expectingConfigErrors(() => {
        const doc = parseIni(input.toString('utf8'), '/fuzz/test.conf', { source: NO_FILES });
        const acls = readAclConfig(doc, silentLogger);
        readAriConfig(doc, silentLogger, acls);
      });
      expectingConfigErrors(() =>
        readSipConfig(parseIni(input.toString('utf8'), '/fuzz/pjsip.conf', { source: NO_FILES }), '/fuzz', silentLogger),
      );
    },
  },
  {
    name: 'core/dialplan',
    seeds: DIALPLAN_SEEDS,
    regressions: [],
    dictionary: ['exten => ', 'same => n,', '_X.', '_[1-5]', '${', '}', '$[', ']', '(', ')', ',', 'n(label)', 'include => ', 'hint'],
    arbitrary: iniText,
    check(input) {
      expectingConfigErrors(() =>
        parseDialplan(parseIni(input.toString('utf8'), '/fuzz/extensions.conf', { source: NO_FILES }), silentLogger),
      );
    },
  },
];
