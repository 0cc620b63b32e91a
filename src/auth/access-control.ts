import { AUTH_GRAPH_PREFIX, POLICIES_GRAPH, TOKENS_GRAPH, USERS_GRAPH, policiesFrom, tokensFrom, usersFrom, usersQuads, tokensQuads, type Policy, type User } from './auth-codec.js';
import { authQueries } from './auth-queries.js';
import type { GraphScope, TripleStore } from '../store/triple-store.js';
import type { Config } from '../config.js';
import { UriScheme } from '../core/uri-scheme.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { hashPassword, newToken, tokenHash, verifyPassword } from './passwords.js';

export type Action = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type { Policy } from './auth-codec.js';
export { AUTH_GRAPH_PREFIX } from './auth-codec.js';

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
  private jwks?: ReturnType<typeof createRemoteJWKSet>;

  private readonly uris: UriScheme;

  private constructor(
    private readonly store: TripleStore,
    private readonly config: Config,
  ) {
    this.uris = new UriScheme(config.baseUrl);
  }

  get enabled(): boolean {
    return this.config.auth;
  }

  static async load(store: TripleStore, config: Config): Promise<AccessControl> {
    const ac = new AccessControl(store, config);
    const { users, groups } = usersFrom(await store.readGraph(USERS_GRAPH));
    for (const [name, user] of users) ac.users.set(name, user);
    for (const [name, members] of groups) ac.groups.set(name, members);
    for (const [hash, token] of tokensFrom(await store.readGraph(TOKENS_GRAPH), Date.now())) ac.tokens.set(hash, token);
    for (const [resource, policy] of policiesFrom(await store.readGraph(POLICIES_GRAPH))) ac.policies.set(resource, policy);
    if (config.adminUser && config.adminPassword && !ac.users.has(config.adminUser)) await ac.setUser(config.adminUser, config.adminPassword, true);
    return ac;
  }

  // --- users and tokens ----------------------------------------------------------------

  private async saveUsers(): Promise<void> {
    await this.store.replaceGraphs({ [USERS_GRAPH]: usersQuads(this.users.values(), this.groups) });
  }

  private async saveTokens(): Promise<void> {
    await this.store.replaceGraphs({ [TOKENS_GRAPH]: tokensQuads(this.tokens, Date.now()) });
  }

  hasUser(name: string): boolean {
    return this.users.has(name);
  }

  isAdmin(name: string | undefined): boolean {
    return !!name && !!this.users.get(name)?.admin;
  }

  async setUser(name: string, password: string, admin = false): Promise<void> {
    this.users.set(name, { name, hash: await hashPassword(password), admin: admin || !!this.users.get(name)?.admin });
    await this.saveUsers();
  }

  /** Set a group's members (an empty list removes the group). */
  async setGroup(group: string, members: string[]): Promise<void> {
    if (members.length) this.groups.set(group, new Set(members));
    else this.groups.delete(group);
    await this.saveUsers();
  }

  hasGroup(group: string): boolean {
    return this.groups.has(group);
  }

  async removeUser(name: string): Promise<boolean> {
    if (!this.users.delete(name)) return false;
    for (const members of this.groups.values()) members.delete(name);
    for (const [h, t] of this.tokens) if (t.user === name) this.tokens.delete(h);
    await this.saveUsers();
    await this.saveTokens();
    return true;
  }

  /** A new token for good credentials, undefined otherwise. */
  async authenticate(name: string, password: string): Promise<string | undefined> {
    const user = this.users.get(name);
    if (!user || !(await verifyPassword(password, user.hash))) return undefined;
    const token = newToken();
    this.tokens.set(tokenHash(token), { user: name, expires: Date.now() + this.config.tokenTtlSeconds * 1000 });
    await this.saveTokens();
    return token;
  }

  /**
   * The user a token stands for: one of our tokens, or (when an OpenID Connect provider is
   * configured) a JWT it signed, checked against its JWKS; such users are named `oidc:{name}`.
   */
  async userOfToken(token: string | undefined): Promise<string | undefined> {
    if (!token) return undefined;
    const t = this.tokens.get(tokenHash(token));
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

  async logout(token: string): Promise<boolean> {
    const removed = this.tokens.delete(tokenHash(token));
    if (removed) await this.saveTokens();
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

  /** Give a newly created resource its policy: the creator owns it; others get the default. */
  async grant(uri: string, owner: string | undefined): Promise<void> {
    if (!this.enabled || !owner) return;
    const resource = this.resourceOf(uri);
    if (!resource || this.policies.has(resource)) return;
    await this.setPolicy({ resource, owner, publicRead: this.config.defaultAccess === 'public-read', readers: [] });
  }

  async setPolicy(policy: Policy): Promise<void> {
    await this.store.update(authQueries.setPolicy(policy));
    this.policies.set(policy.resource, policy);
  }

  policiesOwnedBy(user: string): Policy[] {
    return [...this.policies.values()].filter((p) => p.owner === user || this.isAdmin(user));
  }

  /** What a SPARQL query of `user` may see: never the access-control graphs, only readable resources. */
  scopeFor(user: string | undefined, inner?: GraphScope): GraphScope {
    return {
      includesDefaultGraph: inner?.includesDefaultGraph ?? true,
      allows: (graph: string) => {
        if (graph.startsWith(AUTH_GRAPH_PREFIX)) return false;
        if (inner && !inner.allows(graph)) return false;
        return this.allowed(user, graph, 'GET');
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
