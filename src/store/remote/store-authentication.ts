import { createHash, randomBytes } from 'node:crypto';

/** How ToxGraph signs in to a remote store: a user and password (Basic or Digest, as the store asks), or a bearer token. */
export interface StoreCredentials {
  user?: string;
  password?: string;
  token?: string;
}

/** A Digest challenge's parameters (RFC 7616), as the store gave them. */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  qop?: string;
  algorithm: 'MD5' | 'SHA-256';
}

/**
 * The `Authorization` header of each request to a remote store. A bearer token is sent with
 * every request. A user and password are sent as the store asks in its `WWW-Authenticate`
 * challenge: HTTP Digest (RFC 7616, MD5 or SHA-256, qop=auth; Virtuoso's `/sparql-auth`) when
 * it offers it, else Basic. The scheme and Digest's nonce are kept, so that later requests
 * sign in at once (the nonce count goes up with each); a stale nonce is answered with a new
 * challenge, which the client answers once more.
 */
export class StoreAuthentication {
  private readonly credentials: StoreCredentials;
  private scheme?: 'basic' | { digest: DigestChallenge; count: number };

  constructor(credentials: StoreCredentials) {
    this.credentials = credentials;
  }

  /** The header for a request, or undefined (no credentials, or no challenge seen yet for Digest). */
  header(method: string, url: string): string | undefined {
    const { user, password, token } = this.credentials;
    if (token) return `Bearer ${token}`;
    if (user === undefined || !this.scheme) return undefined;
    if (this.scheme === 'basic') return `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}`;
    this.scheme.count++;
    return digestHeader(this.scheme.digest, this.scheme.count, user, password ?? '', method, new URL(url));
  }

  /**
   * Learn from a 401's challenges. True when the request should be sent again with the new
   * header: a Digest challenge (first, stale, or again), a first Basic one; false when Basic
   * credentials were already sent, or there are none, or no scheme this client speaks.
   */
  challenged(challenges: string | null, sentHeader?: string): boolean {
    if (this.credentials.token || this.credentials.user === undefined || !challenges) return false;
    const digest = parseDigest(challenges);
    if (digest) {
      // answered again even for the nonce just used (a request that overtook another may carry a
      // count the store has seen); the client answers at most twice per request, so refused
      // credentials end as the store's 401
      const count = typeof this.scheme === 'object' && this.scheme.digest.nonce === digest.nonce ? this.scheme.count : 0;
      this.scheme = { digest, count };
      return true;
    }
    if (/^\s*basic\b|,\s*basic\b/i.test(challenges) && !sentHeader) {
      this.scheme = 'basic';
      return true;
    }
    return false;
  }
}

/** The Digest challenge in a `WWW-Authenticate` value (MD5 or SHA-256 with qop auth or none), if there is one. */
export function parseDigest(header: string): DigestChallenge | undefined {
  const at = header.search(/\bdigest\s/i);
  if (at < 0) return undefined;
  const params = new Map<string, string>();
  const pattern = /([a-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/gi;
  for (const m of header.slice(at + 7).matchAll(pattern)) {
    const key = m[1].toLowerCase();
    // another scheme's parameters begin after its name: stop at the first repeated key
    if (params.has(key)) break;
    params.set(key, m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]);
  }
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || nonce === undefined) return undefined;
  const algorithm = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (algorithm !== 'MD5' && algorithm !== 'SHA-256') return undefined;
  const qops = params
    .get('qop')
    ?.split(',')
    .map((q) => q.trim().toLowerCase());
  if (qops && !qops.includes('auth')) return undefined;
  return { realm, nonce, opaque: params.get('opaque'), qop: qops ? 'auth' : undefined, algorithm };
}

const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** The Digest `Authorization` value for a request (`cnonce`: the client's nonce, random unless given). */
export function digestHeader(c: DigestChallenge, count: number, user: string, password: string, method: string, url: URL, cnonce = randomBytes(12).toString('hex')): string {
  const hash = (s: string) =>
    createHash(c.algorithm === 'MD5' ? 'md5' : 'sha256')
      .update(s)
      .digest('hex');
  const uri = `${url.pathname}${url.search}`;
  const ha1 = hash(`${user}:${c.realm}:${password}`);
  const ha2 = hash(`${method}:${uri}`);
  const nc = count.toString(16).padStart(8, '0');
  const response = c.qop ? hash(`${ha1}:${c.nonce}:${nc}:${cnonce}:${c.qop}:${ha2}`) : hash(`${ha1}:${c.nonce}:${ha2}`);
  const parts = [
    `username=${quoted(user)}`,
    `realm=${quoted(c.realm)}`,
    `nonce=${quoted(c.nonce)}`,
    `uri=${quoted(uri)}`,
    `algorithm=${c.algorithm}`,
    `response=${quoted(response)}`,
    ...(c.opaque !== undefined ? [`opaque=${quoted(c.opaque)}`] : []),
    ...(c.qop ? [`qop=${c.qop}`, `nc=${nc}`, `cnonce=${quoted(cnonce)}`] : []),
  ];
  return `Digest ${parts.join(', ')}`;
}
