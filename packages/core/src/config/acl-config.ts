/**
 * acl.conf: named access control lists, as in Asterisk.
 *
 *   [name]      permit = <address>[/<prefix or netmask>], deny = …   (repeatable, in order)
 *
 * Other files refer to a list by name (`acl = name` in an ari.conf user); the rules are applied
 * as address-acl.ts describes (the last matching rule decides).
 */
import { AclSyntaxError, type AclRule, parseAclRule } from '../security/address-acl.js';
import type { Logger } from '../util/logger.js';
import type { IniDocument, IniOption, IniSection } from './ini.js';
import { applyOptions } from './option-table.js';
import { invalid, splitList } from './values.js';

export type NamedAcls = ReadonlyMap<string, readonly AclRule[]>;

export function readAclConfig(doc: IniDocument | undefined, log: Logger): NamedAcls {
  const acls = new Map<string, AclRule[]>();
  if (!doc) return acls;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    const rules: AclRule[] = [];
    applyOptions({ section, log, handlers: aclRuleHandlers(rules) });
    acls.set(section.name, rules);
  }
  return acls;
}

/** Handlers for `permit` and `deny` that append to `rules` in the order written. */
export function aclRuleHandlers(rules: AclRule[]): Record<string, (option: IniOption) => void> {
  const add = (sense: 'permit' | 'deny') => (option: IniOption) => {
    for (const value of splitList(option.value)) {
      try {
        rules.push(parseAclRule(sense, value));
      } catch (err) {
        if (err instanceof AclSyntaxError) throw invalid(option, err.message);
        throw err;
      }
    }
  };
  return { permit: add('permit'), deny: add('deny') };
}

/** The rules of the lists an `acl = a, b` option names; an unknown name stops startup. */
export function namedAclRules(option: IniOption, acls: NamedAcls, section: IniSection): AclRule[] {
  const rules: AclRule[] = [];
  for (const name of splitList(option.value)) {
    const found = acls.get(name);
    if (found === undefined) throw invalid(option, `no [${name}] in acl.conf (used by [${section.name}])`);
    rules.push(...found);
  }
  return rules;
}
