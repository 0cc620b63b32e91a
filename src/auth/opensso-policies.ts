import { HttpError, badRequest, conflict, notFound } from '../core/errors.ts';
import type { AccessControl, Action, Policy } from './access-control.ts';
import type { NamedPolicy } from './auth-codec.ts';
import type { OpenSsoPolicy, OpenSsoSubject } from './opensso-policy-xml.ts';

const EVERY_ACTION: Action[] = ['GET', 'POST', 'PUT', 'DELETE'];

/**
 * A resource's policy with the sharing of `next`; the OpenSSO policies it had stay, each
 * granting no more than the record now does (`POST /auth/policy` narrows them, never widens).
 */
export function keepNamedWithin(next: Policy, before: Policy | undefined): Policy {
  const named = before?.named?.map((n) => ({ name: n.name, publicRead: n.publicRead && next.publicRead, readers: n.readers.filter((g) => next.readers.includes(g)) }));
  return named?.length ? { ...next, named } : next;
}

/** A record's OpenSSO policy names, in order: those posted for it, else its resource URI (the whole record). */
function namesOf(p: Policy): string[] {
  return p.named?.length ? p.named.map((n) => n.name).sort() : [p.resource];
}

const forbidden = (what: string) => new HttpError(403, 'Forbidden', what);

/**
 * The OpenSSO policy service (`/pol`, `/Pol/opensso-pol`) as a face over the resources' own
 * policies (access-control.ts): an OpenSSO policy is a named part of one resource's record,
 * holding what it granted (groups that read, every signed-in user reads); its user subject is
 * the owner. No right is kept anywhere else.
 */
export class OpenSsoPolicies {
  private readonly access: AccessControl;
  constructor(access: AccessControl) {
    this.access = access;
  }

  /** The names of the policies `user` owns (an administrator: all). */
  namesOwnedBy(user: string): string[] {
    return [...new Set(this.access.policiesOwnedBy(user).flatMap(namesOf))];
  }

  /** The owner of the resource `uri` (first line), then its policy names when asked and the caller owns it; `null` for a resource without a policy. */
  ownerOf(user: string, uri: string, withNames: boolean): string[] {
    const resource = this.access.resourceOf(uri);
    const policy = resource && this.access.policyOf(resource);
    if (!resource || !policy) return ['null'];
    if (!this.access.allowed(user, resource, 'GET')) throw forbidden(`${user} may not read ${resource}, nor ask who owns it`);
    const mine = policy.owner === user || this.access.isAdmin(user);
    return [policy.owner, ...(withNames && mine ? namesOf(policy) : [])];
  }

  /**
   * The policy named `name` as OpenSSO policies (its owner's, or an administrator's). A posted
   * policy shows what it granted (the owner's rule when it granted nothing); the resource URI
   * shows the whole record: the owner's rule, and one named `{uri}#readers` for who may read.
   */
  document(user: string, name: string): OpenSsoPolicy[] {
    const { policy, part } = this.owned(user, name, 'read');
    const ownerRule = (n: string): OpenSsoPolicy => ({ name: n, rules: [{ resource: policy.resource, actions: EVERY_ACTION }], subjects: [{ type: 'user', name: policy.owner }] });
    const readingRule = (n: string, g: { publicRead: boolean; readers: string[] }): OpenSsoPolicy[] => {
      const subjects: OpenSsoSubject[] = [...g.readers.map((r): OpenSsoSubject => ({ type: 'group', name: r })), ...(g.publicRead ? [{ type: 'authenticated' } as const] : [])];
      return subjects.length ? [{ name: n, rules: [{ resource: policy.resource, actions: ['GET'] }], subjects }] : [];
    };
    if (!part) return [ownerRule(policy.resource), ...readingRule(`${policy.resource}#readers`, policy)];
    const reading = readingRule(part.name, part);
    return reading.length ? reading : [ownerRule(part.name)];
  }

  /** Create the policies of a document as parts of their resources' records, all or none; answers their names. */
  async create(user: string, policies: OpenSsoPolicy[]): Promise<string[]> {
    const taken = new Set(this.access.allPolicies().flatMap(namesOf));
    const changed = new Map<string, Policy>();
    for (const p of policies) {
      if (taken.has(p.name)) throw conflict(`a policy named ${p.name} exists already`);
      taken.add(p.name);
      const resources = [...new Set(p.rules.map((r) => this.access.resourceOf(r.resource) ?? this.notOurs(p.name, r.resource)))];
      if (resources.length !== 1) throw badRequest(`policy ${p.name}: its rules name ${resources.length} resources; a policy here covers one`);
      const [resource] = resources;
      const before = changed.get(resource) ?? this.access.policyOf(resource);
      this.access.checkPolicyChange(user, resource, before);
      const owner = before?.owner ?? user;
      const part = this.grantOf(p, owner, new Set(p.rules.flatMap((r) => r.actions)));
      changed.set(resource, {
        resource,
        owner,
        publicRead: (before?.publicRead ?? false) || part.publicRead,
        readers: [...new Set([...(before?.readers ?? []), ...part.readers])],
        named: [...(before?.named ?? []), part],
      });
    }
    await this.access.setPolicies([...changed.values()]);
    return policies.map((p) => p.name);
  }

  /** Delete the policy named `name`: what it granted is taken back unless another of the resource's policies grants it too; the resource URI takes back all sharing. */
  async delete(user: string, name: string): Promise<void> {
    const { policy, part } = this.owned(user, name, 'delete');
    if (!part) return this.access.setPolicy({ resource: policy.resource, owner: policy.owner, publicRead: false, readers: [] });
    const others = (policy.named ?? []).filter((n) => n !== part);
    await this.access.setPolicy({
      resource: policy.resource,
      owner: policy.owner,
      publicRead: part.publicRead ? others.some((o) => o.publicRead) : policy.publicRead,
      readers: policy.readers.filter((g) => !part.readers.includes(g) || others.some((o) => o.readers.includes(g))),
      ...(others.length ? { named: others } : {}),
    });
  }

  /** The record a name stands for, and its named part (none when the name is the resource URI); 404, or 403 when it is not the caller's. */
  private owned(user: string, name: string, verb: string): { policy: Policy; part?: NamedPolicy } {
    const named = this.access.allPolicies().find((p) => p.named?.some((n) => n.name === name));
    const resource = this.access.resourceOf(name);
    const policy = named ?? (resource === name ? this.access.policyOf(resource) : undefined);
    if (!policy) throw notFound(`no policy named ${name.slice(0, 200)}`);
    if (policy.owner !== user && !this.access.isAdmin(user)) throw forbidden(`only the owner may ${verb} the policy ${name.slice(0, 200)}`);
    return { policy, part: named?.named?.find((n) => n.name === name) };
  }

  /** What one OpenSSO policy grants here: the owner may do anything; groups and every signed-in user may be let read. */
  private grantOf(p: OpenSsoPolicy, owner: string, actions: Set<Action>): NamedPolicy {
    const part: NamedPolicy = { name: p.name, publicRead: false, readers: [] };
    for (const s of p.subjects) {
      if (s.type === 'user') {
        if (s.name !== owner)
          throw badRequest(
            `policy ${p.name}: ${s.name} is not the owner (${owner}); a policy here lets groups (LDAPGroups) or every signed-in user (AuthenticatedUsers) read, and the owner may do anything`,
          );
        continue;
      }
      if ([...actions].some((a) => a !== 'GET')) throw badRequest(`policy ${p.name}: groups and signed-in users may only be allowed GET here (the owner alone changes a resource)`);
      if (s.type === 'authenticated') part.publicRead = true;
      else if (!this.access.hasGroup(s.name)) throw badRequest(`policy ${p.name}: unknown group ${s.name}`);
      else if (!part.readers.includes(s.name)) part.readers.push(s.name);
    }
    return part;
  }

  private notOurs(policy: string, uri: string): never {
    throw badRequest(`policy ${policy}: ${uri.slice(0, 200)} is not a resource of this service`);
  }
}
