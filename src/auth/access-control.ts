import { HttpError, notFound } from '../core/errors.ts';
import {
  AUTH_GRAPH_PREFIX,
  KEYS_GRAPH,
  POLICIES_GRAPH,
  TOKENS_GRAPH,
  USERS_GRAPH,
  keysFrom,
  policiesFrom,
  tokensFrom,
  usersFrom,
  usersQuads,
  type ApiKey,
  type Policy,
  type User,
} from './auth-codec.ts';
import { authQueries } from './auth-queries.ts';
import type { GraphScope, TripleStore } from '../store/triple-store.ts';
import type { Config } from '../core/config.ts';
import { UriScheme } from '../core/uri-scheme.ts';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { hashPassword, newToken, tokenHash, verifyPassword } from './passwords.ts';
import { construct, select } from '../store/query-helpers.ts';
import { LocalCoordination, type Coordination } from '../core/coordination.ts';

/** What one process tells the others when access control changes (processes sharing the store). */
type AccessChange = { policy: Policy } | { users: true } | { loggedOut: string } | { key: ApiKey };

/** Who a request's token stands for, and whether it may only read (a read-only API key). */
export interface Caller {
  user: string;
  readOnly: boolean;
}

/** API keys are `tgk_` and 43 characters of randomness; only their hash is kept. */
const KEY_PREFIX = 'tgk_';
/** A key's last use is written at most this often (it is kept in memory between). */
const LAST_USE_WRITE_MS = 60_000;
/** Scope keys (a caller under one version of the policies) whose answers are kept, and the graphs kept for each. */
const SCOPES_ANSWERED = 8;
const GRAPHS_ANSWERED_PER_SCOPE = 20_000;

export type Action = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type { Policy } from './auth-codec.ts';
export { AUTH_GRAPH_PREFIX } from './auth-codec.ts';

/**
 * Users, tokens and per-resource policies (spec 5, DESIGN.md). Passwords are kept as scrypt
 * hashes and tokens only as SHA-256 hashes, in graphs that no query can see. When access
 * control is off, nothing is checked.
 */
export class AccessControl {
  private readonly users = new Map<string, User>();
  private readonly tokens = new Map<string, { user: string; expires: number }>();
  private readonly policies = new Map<string, Policy>();
  private readonly groups = new Map<string, Set<string>>();
  /** Grows with every change of policies, users or groups: scopes made under one version allow the same graphs (GraphScope.key). */
  private version = 0;
  /** What each recent scope key was answered, by graph (answersOf). */
  private readonly scopeAnswers = new Map<string, Map<string, boolean>>();
  /** API keys by the hash of the key. */
  private readonly keys = new Map<string, ApiKey>();
  /** When each key's last use was last written. */
  private readonly lastUseWritten = new Map<string, number>();
  private jwks?: ReturnType<typeof createRemoteJWKSet>;

  private readonly uris: UriScheme;

  private readonly store: TripleStore;
  private readonly config: Config;
  private readonly coordination: Coordination;
  private constructor(store: TripleStore, config: Config, coordination: Coordination) {
    this.store = store;
    this.config = config;
    this.coordination = coordination;
    this.uris = new UriScheme(config.baseUrl);
  }

  get enabled(): boolean {
    return this.config.auth;
  }

  static async load(store: TripleStore, config: Config, coordination: Coordination = new LocalCoordination()): Promise<AccessControl> {
    const ac = new AccessControl(store, config, coordination);
    await ac.loadUsers();
    await coordination.subscribe('access', (message) => void ac.changedElsewhere(message as AccessChange).catch(() => undefined));
    for (const [hash, token] of tokensFrom(await store.readGraph(TOKENS_GRAPH), Date.now())) ac.tokens.set(hash, token);
    for (const [resource, policy] of policiesFrom(await store.readGraph(POLICIES_GRAPH))) ac.policies.set(resource, policy);
    for (const [hash, key] of keysFrom(await store.readGraph(KEYS_GRAPH))) ac.keys.set(hash, key);
    if (config.adminUser && config.adminPassword && !ac.users.has(config.adminUser)) await ac.setUser(config.adminUser, config.adminPassword, true);
    return ac;
  }

  private async loadUsers(): Promise<void> {
    const { users, groups } = usersFrom(await this.store.readGraph(USERS_GRAPH));
    this.users.clear();
    this.groups.clear();
    for (const [name, user] of users) this.users.set(name, user);
    for (const [name, members] of groups) this.groups.set(name, members);
    this.version++;
  }

  /** Another process changed a policy, the users or logged a token out. */
  private async changedElsewhere(change: AccessChange): Promise<void> {
    if ('policy' in change) {
      this.policies.set(change.policy.resource, change.policy);
      this.version++;
    } else if ('loggedOut' in change) this.tokens.delete(change.loggedOut);
    else if ('key' in change) this.keys.set(change.key.hash, change.key);
    else if ('users' in change) await this.loadUsers();
  }

  // --- users and tokens ----------------------------------------------------------------

  private async saveUsers(): Promise<void> {
    await this.store.replaceGraphs({ [USERS_GRAPH]: usersQuads(this.users.values(), this.groups) });
    await this.coordination.publish('access', { users: true } satisfies AccessChange);
  }

  hasUser(name: string): boolean {
    return this.users.has(name);
  }

  isAdmin(name: string | undefined): boolean {
    return !!name && !!this.users.get(name)?.admin;
  }

  async setUser(name: string, password: string, admin = false): Promise<void> {
    this.users.set(name, { name, hash: await hashPassword(password), admin: admin || !!this.users.get(name)?.admin });
    this.version++;
    await this.saveUsers();
  }

  /** Set a group's members (an empty list removes the group). */
  async setGroup(group: string, members: string[]): Promise<void> {
    if (members.length) this.groups.set(group, new Set(members));
    else this.groups.delete(group);
    this.version++;
    await this.saveUsers();
  }

  /** The groups a user is a member of. */
  groupsOf(user: string): string[] {
    return [...this.groups].filter(([, members]) => members.has(user)).map(([group]) => group);
  }

  hasGroup(group: string): boolean {
    return this.groups.has(group);
  }

  async removeUser(name: string): Promise<boolean> {
    if (!this.users.delete(name)) return false;
    for (const members of this.groups.values()) members.delete(name);
    this.version++;
    for (const [h, t] of this.tokens) if (t.user === name) this.tokens.delete(h);
    for (const [h, k] of this.keys) if (k.user === name) this.keys.delete(h);
    await this.saveUsers();
    await this.store.update(authQueries.removeTokensOf(name));
    await this.store.update(authQueries.removeKeysOf(name));
    return true;
  }

  /** A new token for good credentials, undefined otherwise. */
  async authenticate(name: string, password: string): Promise<string | undefined> {
    const user = this.users.get(name);
    if (!user || !(await verifyPassword(password, user.hash))) return undefined;
    const token = newToken();
    const hash = tokenHash(token);
    const record = { user: name, expires: Date.now() + this.config.tokenTtlSeconds * 1000 };
    await this.store.update(authQueries.addToken(hash, record, Date.now()));
    this.tokens.set(hash, record);
    return token;
  }

  /**
   * The user a token stands for: one of our tokens, or (when an OpenID Connect provider is
   * configured) a JWT it signed, checked against its JWKS; such users are named `oidc:{name}`.
   */
  async userOfToken(token: string | undefined): Promise<string | undefined> {
    return (await this.callerOfToken(token))?.user;
  }

  /** The caller a token stands for: a login token or an OIDC token (read-write), or an API key (its own scope). */
  async callerOfToken(token: string | undefined): Promise<Caller | undefined> {
    if (!token) return undefined;
    if (token.startsWith(KEY_PREFIX)) {
      const key = await this.liveKey(token);
      return key && { user: key.user, readOnly: key.scope === 'read' };
    }
    const user = await this.userOfLoginToken(token);
    return user === undefined ? undefined : { user, readOnly: false };
  }

  private async userOfLoginToken(token: string): Promise<string | undefined> {
    const hash = tokenHash(token);
    const t = this.tokens.get(hash) ?? (this.coordination.shared ? await this.storedToken(hash) : undefined);
    if (t && t.expires > Date.now() && this.users.has(t.user)) return t.user;
    if (this.config.oidcJwksUrl && /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) {
      this.jwks ??= createRemoteJWKSet(new URL(this.config.oidcJwksUrl));
      try {
        const { payload } = await jwtVerify(token, this.jwks, {
          issuer: this.config.oidcIssuer,
          audience: this.config.oidcAudience,
        });
        const name = (payload.preferred_username as string | undefined) ?? payload.sub;
        return name ? `oidc:${name}` : undefined;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** A token another process issued (processes sharing the store): read once, then known here. */
  private async storedToken(hash: string): Promise<{ user: string; expires: number } | undefined> {
    const [row] = await select(this.store, authQueries.token(hash));
    if (!row) return undefined;
    const token = { user: row.user.value, expires: Date.parse(row.expires.value) };
    if (!this.users.has(token.user)) await this.loadUsers();
    this.tokens.set(hash, token);
    return token;
  }

  // --- API keys ------------------------------------------------------------------------

  /** A new API key of `user` (shown once: only its hash is kept). */
  async createKey(user: string, name: string, scope: ApiKey['scope'], lifetimeMs: number): Promise<{ key: string; record: ApiKey }> {
    const key = `${KEY_PREFIX}${newToken()}`;
    const now = Date.now();
    const record: ApiKey = { id: tokenHash(`${key}:id`).slice(0, 16), user, name, scope, hash: tokenHash(key), created: now, expires: now + lifetimeMs, revoked: false };
    await this.saveKey(record);
    return { key, record };
  }

  /** The keys of a user, newest first (revoked and expired ones too: they show when they stopped). */
  keysOf(user: string): ApiKey[] {
    return [...this.keys.values()].filter((k) => k.user === user).sort((a, b) => b.created - a.created);
  }

  /** Revoke a key by its id (its owner's, or any for an administrator): false when there is no such key for the caller. */
  async revokeKey(caller: string, id: string): Promise<boolean> {
    const key = [...this.keys.values()].find((k) => k.id === id && (k.user === caller || this.isAdmin(caller)));
    if (!key) return false;
    if (!key.revoked) await this.saveKey({ ...key, revoked: true });
    return true;
  }

  private async saveKey(key: ApiKey): Promise<void> {
    await this.store.update(authQueries.setKey(key));
    this.keys.set(key.hash, key);
    await this.coordination.publish('access', { key } satisfies AccessChange);
  }

  /** The key a token is, if it is live (known, not revoked, not expired, its user still there); its use is recorded. */
  private async liveKey(token: string): Promise<ApiKey | undefined> {
    const hash = tokenHash(token);
    let key = this.keys.get(hash);
    if (!key && this.coordination.shared) {
      // made by another process sharing the store
      key = keysFrom(await construct(this.store, authQueries.keyByHash(hash))).get(hash);
      if (key) this.keys.set(hash, key);
    }
    const now = Date.now();
    if (!key || key.revoked || key.expires <= now || !this.users.has(key.user)) return undefined;
    key.lastUsed = now;
    if (now - (this.lastUseWritten.get(hash) ?? 0) >= LAST_USE_WRITE_MS) {
      this.lastUseWritten.set(hash, now);
      // recorded in the background: a use never waits for it
      void this.store.update(authQueries.setKeyLastUsed(key.id, now)).catch(() => undefined);
    }
    return key;
  }

  async logout(token: string): Promise<boolean> {
    const hash = tokenHash(token);
    // a token another process issued is logged out here too
    const removed = this.tokens.has(hash) || (this.coordination.shared && (await this.storedToken(hash)) !== undefined);
    if (removed) {
      this.tokens.delete(hash);
      await this.store.update(authQueries.removeToken(hash));
      await this.coordination.publish('access', { loggedOut: hash } satisfies AccessChange);
    }
    return removed;
  }

  // --- policies ------------------------------------------------------------------------

  /** The protected resource a URI or graph name belongs to (`{base}/dataset/7/entries` → dataset 7). */
  resourceOf(iri: string): string | undefined {
    return this.uris.resourceOf(iri);
  }

  policyOf(resource: string): Policy | undefined {
    return this.policies.get(resource);
  }

  /**
   * May `user` do `action` on the resource `uri` belongs to? Owners and administrators may do
   * anything; others may read when the policy allows public reading. Compounds are shared
   * chemistry: readable by every user. A resource without a policy (made while access control
   * was off) is readable by all users and changed only by administrators.
   */
  allowed(user: string | undefined, uri: string, action: Action): boolean {
    if (!this.enabled) return true;
    if (!user) return false;
    const resource = this.resourceOf(uri);
    if (!resource) return true;
    if (this.isAdmin(user)) return true;
    const policy = this.policies.get(resource);
    // Applying an algorithm or a model (POST) changes neither: whoever may read it may apply it.
    const applies = action === 'POST' && (this.uris.isIn('algorithm', resource) || this.uris.isIn('model', resource));
    const read = action === 'GET' || applies;
    if (!policy) return read;
    if (policy.owner === user) return true;
    return read && (policy.publicRead || this.uris.isIn('compound', resource) || policy.readers.some((g) => this.groups.get(g)?.has(user)));
  }

  /**
   * May `user` set the policy of `resource`? Its owner and administrators may. A resource without
   * a policy has no owner to act: only an administrator gives it one (404 to anyone else, who
   * would otherwise claim a resource made while access control was off, or one not made yet and
   * so own what its creator makes next).
   */
  checkPolicyChange(user: string, resource: string, policy: Policy | undefined): void {
    if (this.isAdmin(user)) return;
    if (!policy) throw notFound(`${resource} has no policy of yours to change (a resource gets its owner when it is made; an administrator sets the policy of one made without)`);
    if (policy.owner !== user) throw new HttpError(403, 'Forbidden', 'only the owner changes a policy');
  }

  /** Give a newly created resource its policy: the creator owns it; others get the default. */
  async grant(uri: string, owner: string | undefined): Promise<void> {
    if (!this.enabled || !owner) return;
    const resource = this.resourceOf(uri);
    // a URI just minted names a new resource: a policy already there (an administrator's for an id not yet made) does not take it from its creator
    if (!resource || (this.policies.has(resource) && resource !== uri)) return;
    await this.setPolicy({ resource, owner, publicRead: this.config.defaultAccess === 'public-read', readers: [] });
  }

  async setPolicy(policy: Policy): Promise<void> {
    await this.setPolicies([policy]);
  }

  /** Replace several resources' policies at once (one atomic write). */
  async setPolicies(policies: Policy[]): Promise<void> {
    if (!policies.length) return;
    await this.store.update(authQueries.setPolicies(policies));
    for (const policy of policies) {
      this.policies.set(policy.resource, policy);
      this.version++;
      await this.coordination.publish('access', { policy } satisfies AccessChange);
    }
  }

  /**
   * The graphs a scope key was answered for: a query of the same caller under the same policies
   * asks a Map, not the policies (each graph's resource found from its URI). A change of any
   * policy, user or group makes new keys; the least recently asked keys leave first.
   */
  private answersOf(key: string): Map<string, boolean> {
    let known = this.scopeAnswers.get(key);
    if (known) {
      this.scopeAnswers.delete(key);
    } else {
      known = new Map();
      if (this.scopeAnswers.size >= SCOPES_ANSWERED) this.scopeAnswers.delete(this.scopeAnswers.keys().next().value as string);
    }
    this.scopeAnswers.set(key, known);
    return known;
  }

  policiesOwnedBy(user: string): Policy[] {
    return [...this.policies.values()].filter((p) => p.owner === user || this.isAdmin(user));
  }

  /** Every resource's policy (the OpenSSO policy names are unique among them all). */
  allPolicies(): Policy[] {
    return [...this.policies.values()];
  }

  /** What a SPARQL query of `user` may see: never the access-control graphs, only readable resources. */
  scopeFor(user: string | undefined, inner?: GraphScope): GraphScope {
    const version = this.version;
    // the caller and the policies' version decide what is allowed (an inner scope decides too: no key)
    const key = inner ? undefined : `${version} ${user ?? ''}`;
    const known = key === undefined ? undefined : this.answersOf(key);
    return {
      includesDefaultGraph: inner?.includesDefaultGraph ?? true,
      key,
      allows: (graph: string) => {
        const kept = known?.get(graph);
        if (kept !== undefined) return kept;
        const yes = !graph.startsWith(AUTH_GRAPH_PREFIX) && (!inner || inner.allows(graph)) && this.allowed(user, graph, 'GET');
        if (known && known.size < GRAPHS_ANSWERED_PER_SCOPE) known.set(graph, yes);
        return yes;
      },
      // as lists of graphs, unless the inner scope cannot say its own
      restriction:
        inner && !inner.restriction
          ? undefined
          : () => {
              const own = inner?.restriction?.();
              // the resources this caller may not read, each with its sub-graphs (`{uri}/entries`, ...)
              const hidden = [...this.policies.keys()].filter((r) => !this.allowed(user, r, 'GET'));
              const everyResource = this.enabled && !user ? [`${this.config.baseUrl}/`] : [];
              return {
                allow: own?.allow,
                deny: [...(own?.deny ?? []), ...hidden],
                denyPrefixes: [...(own?.denyPrefixes ?? []), AUTH_GRAPH_PREFIX, ...everyResource, ...hidden.map((r) => `${r}/`)],
              };
            },
    };
  }
}
