/**
 * switchboard.conf [cluster]: the nodes of a cluster sharing a PostgreSQL store, so a node can
 * forward a REST request on another node's object to that node's API (cluster/ in core, the
 * forwarding in api).
 *
 *   secret = <shared secret>                    node-to-node authentication (never a user's password)
 *   node = node1, http://127.0.0.11:8088/ari    one line per node: its systemname and its API root
 *   node_timeout = 10                           seconds without a heartbeat before a node counts as dead
 *
 * A node finds itself in the list by its `systemname`.
 */
import { ConfigError } from '../errors.js';
import type { IniSection } from './ini.js';
import { applyOptions } from './option-table.js';
import type { ClusterConfig, ClusterNodeConfig } from './types.js';
import { invalid, parseInteger, requireNonEmpty } from './values.js';
import type { Logger } from '../util/logger.js';

/** A shared secret shorter than this is refused: it is the only lock between nodes. */
const MIN_SECRET_LENGTH = 16;

/** `node_timeout` in seconds: the default, and the bounds (a heartbeat goes out every third of it, at most every 3 s). */
export const DEFAULT_NODE_TIMEOUT_S = 10;
const MIN_NODE_TIMEOUT_S = 2;
const MAX_NODE_TIMEOUT_S = 3600;

export function readClusterConfig(section: IniSection, log: Logger): ClusterConfig {
  let secret: string | undefined;
  const nodes: ClusterNodeConfig[] = [];
  let nodeTimeoutS = DEFAULT_NODE_TIMEOUT_S;
  applyOptions({
    section,
    log,
    handlers: {
      secret: (o) => {
        const value = requireNonEmpty(o);
        if (value.length < MIN_SECRET_LENGTH) throw invalid(o, `expected at least ${MIN_SECRET_LENGTH} characters`);
        secret = value;
      },
      node: (o) => {
        const comma = o.value.indexOf(',');
        const name = comma < 0 ? '' : o.value.slice(0, comma).trim();
        const ari =
          comma < 0
            ? ''
            : o.value
                .slice(comma + 1)
                .trim()
                .replace(/\/+$/, '');
        if (name === '' || !/^https?:\/\/[^/]+(\/.*)?\/ari$/.test(ari)) throw invalid(o, 'expected <name>, http://host:port/ari');
        if (nodes.some((n) => n.name === name)) throw invalid(o, `node ${name} is listed twice`);
        nodes.push({ name, ari });
      },
      node_timeout: (o) => {
        nodeTimeoutS = parseInteger(o, MIN_NODE_TIMEOUT_S, MAX_NODE_TIMEOUT_S);
      },
    },
  });
  if (secret === undefined) throw new ConfigError(section.file, section.line, '[cluster] needs secret = <shared secret>');
  return { secret, nodes, nodeTimeoutMs: nodeTimeoutS * 1000 };
}
