/**
 * Log levels as operators name them in logger.conf and in the API's `configuration` parameter.
 * The server's logger (pino) has numeric levels; LEVEL_OF_PINO maps them onto these names.
 */
export const LOG_LEVELS = ['debug', 'verbose', 'notice', 'warning', 'error', 'dtmf', 'fax', 'security'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

export function isLogLevel(text: string): text is LogLevelName {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/**
 * `notice,warning,error` → levels; `*` means all of them. Unknown names are refused so that an
 * operator's typo does not silently produce an empty log.
 */
export function parseLevels(configuration: string): LogLevelName[] | { unknown: string } {
  const levels = new Set<LogLevelName>();
  for (const raw of configuration.split(/[,\s]+/)) {
    const word = raw.trim().toLowerCase();
    if (word === '') continue;
    if (word === '*') for (const level of LOG_LEVELS) levels.add(level);
    else if (isLogLevel(word)) levels.add(word);
    else return { unknown: raw.trim() };
  }
  return LOG_LEVELS.filter((level) => levels.has(level));
}

/**
 * pino's numeric levels (10 trace … 60 fatal) as log-channel levels: info is what operators call
 * notice, trace and debug are debug.
 */
export function levelOfPino(level: number): LogLevelName {
  if (level >= 50) return 'error';
  if (level >= 40) return 'warning';
  if (level >= 30) return 'notice';
  return 'debug';
}
