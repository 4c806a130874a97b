/**
 * Applies a section's options through a table of handlers, one per option name. An option with no
 * handler is one we do not implement yet: operators copy configuration from Asterisk, so it is
 * logged as a warning and skipped rather than stopping startup.
 */
import type { Logger } from '../util/logger.js';
import type { IniOption, IniSection } from './ini.js';

export type OptionHandler = (option: IniOption) => void;

export interface ApplyOptionsParams {
  section: IniSection;
  handlers: Record<string, OptionHandler>;
  log: Logger;
  /** Options read elsewhere (such as `type`) that must not be reported as unsupported. */
  ignore?: readonly string[];
}

export function applyOptions({ section, handlers, log, ignore = [] }: ApplyOptionsParams): void {
  for (const option of section.options) {
    const handler = Object.hasOwn(handlers, option.key) ? handlers[option.key] : undefined;
    if (handler) {
      handler(option);
    } else if (!ignore.includes(option.key)) {
      warnUnsupported(log, option, section.name);
    }
  }
}

export function warnUnsupported(log: Logger, option: IniOption, section: string): void {
  log.warn(
    { file: option.file, line: option.line, section, option: option.rawKey },
    `option '${option.rawKey}' in [${section}] is not supported yet; ignored`,
  );
}

export function warnUnsupportedSection(log: Logger, section: IniSection): void {
  log.warn({ file: section.file, line: section.line, section: section.name }, `section [${section.name}] is not used; ignored`);
}
