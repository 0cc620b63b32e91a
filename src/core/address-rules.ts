import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

/** What each refused range is, as the error report names it. */
const RULES: Record<string, string> = {
  unspecified: 'an unspecified address (0.0.0.0/8, ::)',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address (224.0.0.0/4, ff00::/8)',
  linkLocal: 'a link-local address (169.254.0.0/16, fe80::/10; cloud instance metadata lives here)',
  loopback: 'a loopback address (127.0.0.0/8, ::1)',
  carrierGradeNat: 'a shared (carrier-grade NAT) address (100.64.0.0/10)',
  private: 'a private address (RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)',
  uniqueLocal: 'a unique-local IPv6 address (fc00::/7)',
  deprecatedSiteLocal: 'a site-local IPv6 address (fec0::/10)',
};

/**
 * Why the server must not connect to `address`, or undefined when it may: every address that is
 * not plain public unicast is refused (loopback, private, link-local, multicast, unspecified,
 * reserved, and IPv6 forms that embed an IPv4 address), unless one of `allowed` contains it.
 */
export function refusalOf(address: string, allowed: Cidr[] = []): string | undefined {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `${address} is not an IP address`;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (allowed.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net as never, bits))) return undefined;
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return `${parsed.toString()} is ${RULES[range] ?? `a reserved or special-purpose address (${range})`}`;
}

/** `all` (or on/true/yes/1) allows every address; otherwise a comma-separated list of CIDRs or addresses. */
export function parseAllowedRanges(value: string): Cidr[] {
  const v = value.trim().toLowerCase();
  if (['all', 'on', 'true', 'yes', '1'].includes(v)) return [ipaddr.parseCIDR('0.0.0.0/0'), ipaddr.parseCIDR('::/0')];
  return parseRanges(v, '--allow-private-targets takes "all" or CIDRs such as 10.1.0.0/16');
}

/**
 * `--trust-proxy`: the addresses or CIDRs of the proxies in front of the server, whose
 * `X-Forwarded-For` is believed (none by default). Never "all": that would believe every client.
 */
export function parseTrustedProxies(value: string): Cidr[] {
  if (['all', 'on', 'true', 'yes', '1'].includes(value.trim().toLowerCase())) {
    throw new Error('--trust-proxy names the proxies (addresses or CIDRs such as 10.0.0.5 or 10.89.0.0/24), not "all": X-Forwarded-For is written by whoever connects');
  }
  return parseRanges(value, '--trust-proxy takes addresses or CIDRs such as 10.0.0.5 or 10.89.0.0/24');
}

function parseRanges(value: string, usage: string): Cidr[] {
  const v = value.trim().toLowerCase();
  if (['', 'off', 'false', 'no', '0', 'none'].includes(v)) return [];
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      try {
        if (s.includes('/')) return ipaddr.parseCIDR(s);
        const a = ipaddr.parse(s);
        return [a, a.kind() === 'ipv4' ? 32 : 128] as Cidr;
      } catch {
        throw new Error(`${usage}, not ${s}`);
      }
    });
}

/** Is this listening host reachable only from this machine? */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  try {
    const a = ipaddr.process(host.replace(/^\[|\]$/g, ''));
    return a.range() === 'loopback';
  } catch {
    return false;
  }
}
