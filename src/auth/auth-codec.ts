import type * as RDF from '@rdfjs/types';
import { df, ot, literal } from '../rdf/namespaces.ts';

/** Graphs of the access-control data itself: never visible to any query. */
export const AUTH_GRAPH_PREFIX = 'urn:toxgraph:auth:';
export const USERS_GRAPH = `${AUTH_GRAPH_PREFIX}users`;
export const TOKENS_GRAPH = `${AUTH_GRAPH_PREFIX}tokens`;
export const POLICIES_GRAPH = `${AUTH_GRAPH_PREFIX}policies`;
export const KEYS_GRAPH = `${AUTH_GRAPH_PREFIX}keys`;

/** A user's named API key (only its SHA-256 hash is stored): read-only or read-write, with an expiry, revocable, its last use recorded. */
export interface ApiKey {
  id: string;
  user: string;
  name: string;
  scope: 'read' | 'write';
  hash: string;
  created: number;
  expires: number;
  lastUsed?: number;
  revoked: boolean;
}

const KEY = 'urn:toxgraph:key:';

/** The node of an API key in the keys graph. */
export function keyNode(id: string): RDF.NamedNode {
  return df.namedNode(`${KEY}${id}`);
}

/** An API key's statements in the keys graph. */
export function keyQuads(k: ApiKey): RDF.Quad[] {
  const node = keyNode(k.id);
  return [
    df.quad(node, ot('user'), literal(k.user)),
    df.quad(node, ot('keyName'), literal(k.name)),
    df.quad(node, ot('keyScope'), literal(k.scope)),
    df.quad(node, ot('keyHash'), literal(k.hash)),
    df.quad(node, ot('created'), literal(new Date(k.created))),
    df.quad(node, ot('expires'), literal(new Date(k.expires))),
    ...(k.lastUsed !== undefined ? [df.quad(node, ot('lastUsed'), literal(new Date(k.lastUsed)))] : []),
    df.quad(node, ot('revoked'), literal(k.revoked)),
  ];
}

/** The API keys of the keys graph, by the hash of each key. */
export function keysFrom(quads: RDF.Quad[]): Map<string, ApiKey> {
  const by = new Map<string, Map<string, string>>();
  for (const q of quads) {
    if (!q.subject.value.startsWith(KEY)) continue;
    const id = q.subject.value.slice(KEY.length);
    if (!by.has(id)) by.set(id, new Map());
    by.get(id)!.set(q.predicate.value, q.object.value);
  }
  const keys = new Map<string, ApiKey>();
  for (const [id, v] of by) {
    const get = (local: string) => v.get(ot(local).value);
    const hash = get('keyHash');
    const user = get('user');
    if (!hash || !user) continue;
    const lastUsed = get('lastUsed');
    keys.set(hash, {
      id,
      user,
      name: get('keyName') ?? '',
      scope: get('keyScope') === 'read' ? 'read' : 'write',
      hash,
      created: Date.parse(get('created') ?? ''),
      expires: Date.parse(get('expires') ?? ''),
      lastUsed: lastUsed ? Date.parse(lastUsed) : undefined,
      revoked: get('revoked') === 'true',
    });
  }
  return keys;
}

export interface User {
  name: string;
  /** scrypt hash of the password (passwords.ts). */
  hash: string;
  admin: boolean;
}

export interface Policy {
  resource: string;
  owner: string;
  publicRead: boolean;
  /** Groups whose members may read. */
  readers: string[];
  /** The OpenSSO policies posted for the resource (`POST /Pol/opensso-pol`), each with what it granted; never more than the record grants. */
  named?: NamedPolicy[];
}

/** An OpenSSO policy by its name: the part of a resource's sharing it granted. */
export interface NamedPolicy {
  name: string;
  publicRead: boolean;
  readers: string[];
}

/** Live tokens by their SHA-256 hash (the token itself is never stored). */
export type Tokens = Map<string, { user: string; expires: number }>;
/** Members of each group. */
export type Groups = Map<string, Set<string>>;

const USER = 'urn:toxgraph:user:';
const GROUP = 'urn:toxgraph:group:';
const TOKEN = 'urn:toxgraph:token:';

/** The users graph: each user's password hash and role, each group's members. */
export function usersQuads(users: Iterable<User>, groups: Groups): RDF.Quad[] {
  const quads: RDF.Quad[] = [];
  for (const u of users) {
    const node = df.namedNode(`${USER}${encodeURIComponent(u.name)}`);
    quads.push(df.quad(node, ot('passwordHash'), literal(u.hash)));
    if (u.admin) quads.push(df.quad(node, ot('role'), literal('admin')));
  }
  for (const [group, members] of groups) {
    for (const m of members) quads.push(df.quad(df.namedNode(`${GROUP}${encodeURIComponent(group)}`), ot('member'), literal(m)));
  }
  return quads;
}

export function usersFrom(quads: RDF.Quad[]): { users: Map<string, User>; groups: Groups } {
  const users = new Map<string, User>();
  const groups: Groups = new Map();
  for (const q of quads) {
    if (q.predicate.equals(ot('passwordHash'))) {
      const name = decodeURIComponent(q.subject.value.slice(USER.length));
      const admin = quads.some((a) => a.subject.equals(q.subject) && a.predicate.equals(ot('role')) && a.object.value === 'admin');
      users.set(name, { name, hash: q.object.value, admin });
    } else if (q.predicate.equals(ot('member'))) {
      const group = decodeURIComponent(q.subject.value.slice(GROUP.length));
      if (!groups.has(group)) groups.set(group, new Set());
      groups.get(group)!.add(q.object.value);
    }
  }
  return { users, groups };
}

/** The node of a token (by its hash) in the tokens graph. */
export function tokenNode(hash: string): RDF.NamedNode {
  return df.namedNode(`${TOKEN}${hash}`);
}

/** The tokens graph: the tokens that have not expired at `now`. */
export function tokensQuads(tokens: Tokens, now: number): RDF.Quad[] {
  return [...tokens]
    .filter(([, t]) => t.expires > now)
    .flatMap(([hash, t]) => {
      const node = tokenNode(hash);
      return [df.quad(node, ot('user'), literal(t.user)), df.quad(node, ot('expires'), literal(new Date(t.expires)))];
    });
}

export function tokensFrom(quads: RDF.Quad[], now: number): Tokens {
  const tokens: Tokens = new Map();
  for (const q of quads.filter((q) => q.predicate.equals(ot('user')))) {
    const expires = Date.parse(quads.find((t) => t.subject.equals(q.subject) && t.predicate.equals(ot('expires')))?.object.value ?? '');
    if (expires > now) tokens.set(q.subject.value.slice(TOKEN.length), { user: q.object.value, expires });
  }
  return tokens;
}

const NAMED_POLICY = 'urn:toxgraph:policy:';

/** The node of an OpenSSO policy by its name (names are unique among all policies). */
export function namedPolicyNode(name: string): RDF.NamedNode {
  return df.namedNode(`${NAMED_POLICY}${encodeURIComponent(name)}`);
}

/** One resource's policy, as it is stored and as GET /auth/policy shows it: its OpenSSO policies are nodes `ot:policyOf` it. */
export function policyQuads(p: Policy): RDF.Quad[] {
  const r = df.namedNode(p.resource);
  const grants = (node: RDF.NamedNode, g: { publicRead: boolean; readers: string[] }) => [
    df.quad(node, ot('publicRead'), literal(g.publicRead)),
    ...g.readers.map((group) => df.quad(node, ot('readableBy'), literal(group))),
  ];
  const named = (p.named ?? []).flatMap((n) => {
    const node = namedPolicyNode(n.name);
    return [df.quad(node, ot('policyOf'), r), df.quad(node, ot('policyName'), literal(n.name)), ...grants(node, n)];
  });
  return [df.quad(r, ot('owner'), literal(p.owner)), ...grants(r, p), ...named];
}

export function policiesFrom(quads: RDF.Quad[]): Map<string, Policy> {
  const policies = new Map<string, Policy>();
  const grantsOf = (subject: RDF.Term) => {
    const about = quads.filter((p) => p.subject.equals(subject));
    const publicRead = about.some((p) => p.predicate.equals(ot('publicRead')) && p.object.value === 'true');
    const readers = about.filter((p) => p.predicate.equals(ot('readableBy'))).map((p) => p.object.value);
    return { publicRead, readers, name: about.find((p) => p.predicate.equals(ot('policyName')))?.object.value };
  };
  for (const q of quads.filter((q) => q.predicate.equals(ot('owner')))) {
    const { publicRead, readers } = grantsOf(q.subject);
    policies.set(q.subject.value, { resource: q.subject.value, owner: q.object.value, publicRead, readers });
  }
  for (const q of quads.filter((q) => q.predicate.equals(ot('policyOf')))) {
    const policy = policies.get(q.object.value);
    const { name, publicRead, readers } = grantsOf(q.subject);
    if (policy && name !== undefined) policy.named = [...(policy.named ?? []), { name, publicRead, readers }];
  }
  return policies;
}
