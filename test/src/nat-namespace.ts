/**
 * A phone's network behind a real NAT, for the end-to-end tests: a network namespace whose only
 * way out is a veth pair to the host, with nftables masquerading the phone's private address
 * (on the namespace's loopback) to the namespace's outer address and to other ports, as a home router
 * does. The host side has no route to the private address, so the server reaches the phone only
 * through the NAT's mappings. Addresses come from 198.18.0.0/15 (RFC 2544: benchmark testing),
 * which no real network uses.
 *
 *   server 198.18.2.2 (host, veth sbh…) ── 198.18.2.1 (namespace, veth sbp…) ── NAT ── phone 198.18.1.2 (lo)
 *
 * `openNatNamespace()` answers why it cannot when the machine does not allow it (no root, no
 * `ip netns`, no nftables): the test then skips with that reason.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export const SERVER_ADDRESS = '198.18.2.2';
export const NAT_OUTER_ADDRESS = '198.18.2.1';
export const PHONE_ADDRESS = '198.18.1.2';
/** The NAT maps the phone's ports into this range (never the phone's own ports). */
export const NAT_PORTS = { first: 41000, last: 41999 };

export interface NatNamespace {
  name: string;
  close(): void;
}

function run(command: string, args: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The namespace, or the reason it cannot be made here. */
export function openNatNamespace(): NatNamespace | string {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'network namespaces need root';
  for (const tool of ['ip', 'nft']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0) return `${tool} is not installed`;
  }
  const id = `${process.pid % 100000}`;
  const name = `sbnat${id}`;
  const host = `sbh${id}`;
  const inner = `sbp${id}`;
  try {
    run('ip', ['netns', 'add', name]);
  } catch (err) {
    return `ip netns add is not permitted here (${(err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err)})`;
  }
  const close = () => {
    spawnSync('ip', ['link', 'del', host], { stdio: 'ignore' });
    spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  };
  try {
    const inNs = (args: string[]) => run('ip', ['netns', 'exec', name, ...args]);
    run('ip', ['link', 'add', host, 'type', 'veth', 'peer', 'name', inner]);
    run('ip', ['link', 'set', inner, 'netns', name]);
    run('ip', ['addr', 'add', `${SERVER_ADDRESS}/24`, 'dev', host]);
    run('ip', ['link', 'set', host, 'up']);
    inNs(['ip', 'link', 'set', 'lo', 'up']);
    inNs(['ip', 'addr', 'add', `${NAT_OUTER_ADDRESS}/24`, 'dev', inner]);
    inNs(['ip', 'link', 'set', inner, 'up']);
    // The phone's private address lives on the namespace's loopback: no other network reaches it.
    inNs(['ip', 'addr', 'add', `${PHONE_ADDRESS}/32`, 'dev', 'lo']);
    // The router: what the phone sends out leaves with the outer address and another port.
    inNs(['nft', 'add', 'table', 'ip', 'nat']);
    inNs(['nft', 'add', 'chain', 'ip', 'nat', 'post', '{ type nat hook postrouting priority 100 ; }']);
    inNs([
      'nft',
      'add',
      'rule',
      'ip',
      'nat',
      'post',
      'oifname',
      inner,
      'ip',
      'saddr',
      PHONE_ADDRESS,
      'meta',
      'l4proto',
      'udp',
      'masquerade',
      'to',
      `:${NAT_PORTS.first}-${NAT_PORTS.last}`,
    ]);
  } catch (err) {
    close();
    return `the NAT could not be set up (${(err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err)})`;
  }
  return { name, close };
}
