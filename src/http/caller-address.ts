import type { Context, Next } from 'koa';
import ipaddr from 'ipaddr.js';
import type { Cidr } from '../core/address-rules.ts';

const FORWARDING_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded'];

/**
 * Who is calling (`ctx.ip`, which the login throttle and the job quota key on). The socket's
 * peer, unless that peer is one of the proxies named by `--trust-proxy`: then the nearest
 * address in `X-Forwarded-For` that is not a trusted proxy (read from the right: addresses
 * further left were written by whoever the proxy talked to, so a client can put anything
 * there). A request that does not come from a trusted proxy has its forwarding headers removed,
 * so neither `ctx.ip` nor Koa's `ctx.protocol` and `ctx.host` ever take a client's word.
 */
export function callerAddress(trustedProxies: Cidr[]) {
  const trusted = (address: string): boolean => {
    const parsed = parseAddress(address);
    return !!parsed && trustedProxies.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net as never, bits));
  };
  return async (ctx: Context, next: Next) => {
    const peer = normalise(ctx.req.socket.remoteAddress ?? '');
    if (!trustedProxies.length || !trusted(peer)) {
      for (const h of FORWARDING_HEADERS) delete ctx.req.headers[h];
      ctx.request.ip = peer;
      return next();
    }
    const forwarded = String(ctx.req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .map((a) => normalise(a.trim()))
      .filter(Boolean);
    let caller = peer;
    for (let i = forwarded.length - 1; i >= 0; i--) {
      // a value that is not an address ends the chain: the caller is the last address trusted so far
      if (!parseAddress(forwarded[i])) break;
      caller = forwarded[i];
      if (!trusted(caller)) break;
    }
    ctx.request.ip = caller;
    return next();
  };
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return ipaddr.process(address);
  } catch {
    return undefined;
  }
}

/** An address as one spelling: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as IPv4, IPv6 compressed. */
function normalise(address: string): string {
  const parsed = parseAddress(address);
  return parsed ? parsed.toString() : address;
}
