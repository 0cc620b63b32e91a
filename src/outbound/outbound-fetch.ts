import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent, Response } from 'undici';
import { badGateway, badRequest, HttpError } from '../core/errors.ts';
import { refusalOf, type Cidr } from '../core/address-rules.ts';

/**
 * Every request the server makes on a client's behalf (registration and its refresh, remote
 * dataset services, and whatever fetches later) goes through this module, under one policy:
 * http(s) only, no credentials in the URL, the allow-list, no internal addresses, a time and a
 * size limit, and redirects checked like the first URL.
 */
export interface OutboundPolicy {
  /** URL prefixes that may be fetched; empty means any http(s) URL. */
  harvestAllow: string[];
  /** Address ranges that are reachable although internal (--allow-private-targets). */
  allowPrivateTargets: Cidr[];
  harvestTimeoutMs: number;
  harvestMaxBytes: number;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Follow up to 5 redirects, each checked like the first URL (GET only); otherwise a 3xx is answered as it is. */
  followRedirects?: boolean;
}

export interface OutboundResponse {
  status: number;
  /** The media type of the answer, lower case, without parameters. */
  mediaType: string;
  headers: Headers;
  /** The URL that answered (after redirects). */
  url: string;
  text: string;
}

const MAX_REDIRECTS = 5;

/** A target refused by the address rules: the caller's request is at fault (400). */
class RefusedTarget extends Error {}

const refusal = (url: string, why: string) => badRequest(`the server does not connect to ${url}: ${why}. Internal addresses are refused unless the operator allows them (--allow-private-targets)`);

/**
 * May the server fetch this URL? Checks the URL, the allow-list, and every address its host
 * name resolves to now (400 naming the rule otherwise). The connection itself is checked
 * again when it is made, so a name that changes its answer in between gains nothing.
 */
export async function checkOutboundTarget(url: string, policy: OutboundPolicy): Promise<URL> {
  const parsed = checkUrl(url, policy);
  const host = hostOf(parsed);
  const addresses = isIP(host) ? [host] : await resolveAll(host).catch(() => [] as string[]);
  for (const address of addresses) {
    const why = refusalOf(address, policy.allowPrivateTargets);
    if (why) throw refusal(url, why);
  }
  return parsed;
}

/** Make one outbound request under the policy; any failure other than a refused target is a 502. */
export async function outboundFetch(url: string, request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  let current = (await checkOutboundTarget(url, policy)).href;
  // undici is loaded with the first outbound request, not with the server (about 70 ms)
  const { fetch: undiciFetch, Agent } = await import('undici');
  const signal = AbortSignal.timeout(policy.harvestTimeoutMs);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: Response;
    try {
      response = await undiciFetch(current, {
        method: request.method ?? 'GET',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal,
        dispatcher: agentFor(Agent, policy.allowPrivateTargets),
      });
    } catch (e) {
      throw failureOf(e, url, current, policy);
    }
    const location = response.headers.get('location');
    if (request.followRedirects && response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      let next: string;
      try {
        next = new URL(location, current).href;
      } catch {
        throw badGateway(`${url} redirected to something that is not a URL: ${location.slice(0, 200)}`);
      }
      current = (await checkOutboundTarget(next, policy)).href;
      continue;
    }
    const text = await readLimited(response, policy.harvestMaxBytes, url).catch((e) => {
      throw e instanceof HttpError ? e : failureOf(e, url, current, policy);
    });
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    return { status: response.status, mediaType, headers: response.headers as unknown as Headers, url: current, text };
  }
  throw badGateway(`too many redirects retrieving ${url}`);
}

function checkUrl(url: string, policy: OutboundPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest(`only http and https URLs can be fetched, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw badRequest('URLs with credentials cannot be fetched');
  if (policy.harvestAllow.length && !policy.harvestAllow.some((p) => parsed.href.startsWith(p))) {
    throw badRequest(`${url} is not on this server's allow-list of fetchable URLs (--harvest-allow)`);
  }
  return parsed;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))));
}

/**
 * The resolver of outbound connections: it resolves the name, refuses it when any address is
 * internal, and hands exactly the checked addresses to the socket, which connects to one of
 * them. (Literal IP hosts never reach it; checkOutboundTarget checks them before each hop.)
 */
function checkedLookup(allowed: Cidr[]) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      for (const a of addresses) {
        const why = refusalOf(a.address, allowed);
        if (why) return callback(new RefusedTarget(why));
      }
      if (!addresses.length) return callback(new Error(`${hostname} has no address`));
      if (options?.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

const agents = new Map<string, Agent>();

function agentFor(AgentOf: typeof Agent, allowed: Cidr[]): Agent {
  const key = allowed.map(([net, bits]) => `${net.toString()}/${bits}`).join(',');
  let agent = agents.get(key);
  if (!agent) {
    agent = new AgentOf({ connect: { lookup: checkedLookup(allowed) as never }, keepAliveTimeout: 4_000 });
    agents.set(key, agent);
  }
  return agent;
}

function failureOf(e: unknown, url: string, current: string, policy: OutboundPolicy): HttpError {
  for (let cause: unknown = e; cause; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof RefusedTarget) return refusal(current, cause.message);
  }
  const err = e as Error;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return badGateway(`could not retrieve ${url}: no answer within ${policy.harvestTimeoutMs} ms`);
  const cause = (err as { cause?: Error })?.cause;
  return badGateway(`could not retrieve ${url}: ${cause?.message ?? err?.message ?? String(e)}`);
}

async function readLimited(response: Response, limit: number, url: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw badGateway(`${url} is larger than the limit of ${limit} bytes (--harvest-max-bytes)`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A `fetch` for libraries that fetch by themselves (the query engine's SERVICE calls): every
 * request goes through `outboundFetch` under the same policy, and its answer becomes a standard
 * Response.
 */
export function policyFetch(policy: OutboundPolicy): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw badRequest(`the server does not send ${method} requests to other hosts`);
    const answer = await outboundFetch(url, { method, headers, body: init?.body === undefined || init.body === null ? undefined : String(init.body), followRedirects: method === 'GET' }, policy);
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      out[name] = value;
    });
    return new globalThis.Response(answer.text, { status: answer.status, headers: out });
  }) as unknown as typeof fetch;
}
