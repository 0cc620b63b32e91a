import { DOMParser, type Element, type Node } from '@xmldom/xmldom';
import { HttpError, badRequest } from '../core/errors.ts';
import { nonXmlCharProblem } from '../core/xml-chars.ts';
import { escapeXml } from '../rdf/xml-text.ts';
import type { Action } from './access-control.ts';

/**
 * OpenSSO policy documents (`Policies/Policy/Rule`, `Subjects`), as the OpenTox AA 1.2 clients
 * post them to `/Pol/opensso-pol` and read them from `/pol`: read safely into plain records and
 * written back. Reading takes what the format says and nothing else: no DTD is ever loaded, and
 * a document with an internal subset (entity declarations), another DOCTYPE or an entity
 * reference other than XML's own five is refused.
 */
export interface OpenSsoPolicy {
  name: string;
  /** What the policy allows, per resource URI (as written in `ResourceName`). */
  rules: { resource: string; actions: Action[] }[];
  subjects: OpenSsoSubject[];
}

/** A user (`LDAPUsers`, `uid=…`), a group (`LDAPGroups`, `cn=…`), or every signed-in user (`AuthenticatedUsers`). */
export type OpenSsoSubject = { type: 'user' | 'group'; name: string } | { type: 'authenticated' };

/** The DTD the OpenSSO policy service asked for; clients name it and it is never fetched. */
const POLICY_DTD = 'jar://com/sun/identity/policy/policyAdmin.dtd';
const DOCTYPE = `<!DOCTYPE Policies PUBLIC "-//Sun Java System Access Manager7.1 2006Q3  Admin CLI DTD//EN" "${POLICY_DTD}">`;
const ACTIONS: readonly Action[] = ['GET', 'POST', 'PUT', 'DELETE'];
/** The LDAP names of subjects in OpenTox policies: `uid=alice,ou=people,dc=opentox,dc=org`, `cn=member,ou=groups,…`. */
const LDAP_NAME = /^\s*(?:uid|cn)=([^,]+)/i;
const LDAP_BASE = 'dc=opentox,dc=org';
/** A name that is one line of a text/plain answer. */
const NAME = /^[^\u0000-\u001f\u007f]{1,200}$/;
const ELEMENT_NODE = 1;

function childElements(e: Element, name?: string): Element[] {
  const out: Element[] = [];
  for (let n: Node | null = e.firstChild; n; n = n.nextSibling) if (n.nodeType === ELEMENT_NODE && (!name || (n as Element).localName === name)) out.push(n as Element);
  return out;
}

/** Attribute/Value pairs of an element (`<AttributeValuePair><Attribute name="GET"/><Value>allow</Value></AttributeValuePair>`). */
function valuePairs(e: Element): { attribute: string; values: string[] }[] {
  return childElements(e, 'AttributeValuePair').map((pair) => ({
    attribute: childElements(pair, 'Attribute')[0]?.getAttribute('name') ?? '',
    values: childElements(pair, 'Value').map((v) => (v.textContent ?? '').trim()),
  }));
}

/** Parse the text as XML, refusing what could reach outside it or multiply it. */
function parseSafely(xml: string): Element {
  const errors: string[] = [];
  let root: Element | null;
  try {
    const dom = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') errors.push(String(message).split('\n')[0]);
      },
    }).parseFromString(xml, 'text/xml');
    const doctype = dom.doctype;
    // (xmldom keeps the system literal's quotes)
    if (doctype && (doctype.name !== 'Policies' || doctype.systemId?.replace(/^(["'])(.*)\1$/, '$2') !== POLICY_DTD || doctype.internalSubset)) {
      throw badRequest(`the policy document may name only OpenSSO's policy DTD (${POLICY_DTD}); a DOCTYPE with entity declarations or other external references is refused`);
    }
    root = dom.documentElement;
  } catch (e) {
    if (e instanceof HttpError) throw e;
    errors.push((e as Error).message.split('\n')[0]);
    root = null;
  }
  // xmldom leaves an undeclared entity as text and reports it: any such report refuses the document
  if (errors.length || !root) throw badRequest(`not a well-formed policy document: ${errors[0] ?? 'no root element'}`.slice(0, 300));
  if (root.localName !== 'Policies') throw badRequest(`the root element is ${root.localName}, not Policies`);
  return root;
}

function readSubject(policy: string, s: Element): OpenSsoSubject[] {
  const type = s.getAttribute('type') ?? '';
  if (type === 'AuthenticatedUsers') return [{ type: 'authenticated' }];
  if (type !== 'LDAPUsers' && type !== 'LDAPGroups')
    throw badRequest(`policy ${policy}: subjects of type ${JSON.stringify(type.slice(0, 50))} are not supported (LDAPUsers, LDAPGroups, AuthenticatedUsers)`);
  const values = valuePairs(s)
    .filter((p) => p.attribute === 'Values')
    .flatMap((p) => p.values);
  if (!values.length) throw badRequest(`policy ${policy}: a ${type} subject names no one (its Values)`);
  return values.map((v) => {
    const name = (LDAP_NAME.exec(v)?.[1] ?? v).trim();
    if (!NAME.test(name) || nonXmlCharProblem(name, 'a name')) throw badRequest(`policy ${policy}: ${JSON.stringify(v.slice(0, 100))} is not a user or group name`);
    return { type: type === 'LDAPUsers' ? 'user' : 'group', name };
  });
}

function readRule(policy: string, rule: Element): OpenSsoPolicy['rules'][number] {
  const resource = childElements(rule, 'ResourceName')[0]?.getAttribute('name')?.trim();
  if (!resource) throw badRequest(`policy ${policy}: a Rule without a ResourceName`);
  const actions: Action[] = [];
  for (const { attribute, values } of valuePairs(rule)) {
    const action = attribute.toUpperCase() as Action;
    if (!ACTIONS.includes(action)) throw badRequest(`policy ${policy}: the action ${JSON.stringify(attribute.slice(0, 50))} is not GET, POST, PUT or DELETE`);
    if (values.some((v) => v.toLowerCase() !== 'allow')) throw badRequest(`policy ${policy}: only allow is supported for ${action} (what is not allowed is denied)`);
    if (!actions.includes(action)) actions.push(action);
  }
  if (!actions.length) throw badRequest(`policy ${policy}: the rule on ${resource.slice(0, 200)} allows no action`);
  return { resource, actions };
}

/** The policies of an OpenSSO policy document; 400 naming the first thing that is not one. */
export function readOpenSsoPolicies(xml: string): OpenSsoPolicy[] {
  const root = parseSafely(xml);
  const policies = childElements(root, 'Policy').map((p): OpenSsoPolicy => {
    const name = p.getAttribute('name') ?? '';
    if (!NAME.test(name)) throw badRequest('a Policy needs a name of 1 to 200 characters, none of them a control character');
    // a name is stored and answered in RDF/XML and policy XML: what XML cannot carry (U+FFFE, a lone surrogate) is refused
    const problem = nonXmlCharProblem(name, 'the Policy name');
    if (problem) throw badRequest(problem);
    const unknown = childElements(p).find((c) => c.localName !== 'Rule' && c.localName !== 'Subjects');
    if (unknown) throw badRequest(`policy ${name}: ${unknown.localName} is not supported here (Rule and Subjects are)`);
    const rules = childElements(p, 'Rule').map((r) => readRule(name, r));
    if (!rules.length) throw badRequest(`policy ${name} has no Rule`);
    const subjects = childElements(p, 'Subjects').flatMap((ss) => childElements(ss, 'Subject').flatMap((s) => readSubject(name, s)));
    return { name, rules, subjects };
  });
  if (!policies.length) throw badRequest('the document holds no Policy');
  return policies;
}

function subjectXml(s: OpenSsoSubject, i: number): string {
  if (s.type === 'authenticated') return `      <Subject name="s${i}" type="AuthenticatedUsers" includeType="inclusive"/>\n`;
  const [type, value] = s.type === 'user' ? ['LDAPUsers', `uid=${s.name},ou=people,${LDAP_BASE}`] : ['LDAPGroups', `cn=${s.name},ou=groups,${LDAP_BASE}`];
  return `      <Subject name="s${i}" type="${type}" includeType="inclusive">
        <AttributeValuePair><Attribute name="Values"/><Value>${escapeXml(value)}</Value></AttributeValuePair>
      </Subject>\n`;
}

function policyXml(p: OpenSsoPolicy): string {
  const rules = p.rules
    .map(
      (r, i) => `    <Rule name="r${i + 1}">
      <ServiceName name="iPlanetAMWebAgentService"/>
      <ResourceName name="${escapeXml(r.resource)}"/>
${r.actions.map((a) => `      <AttributeValuePair><Attribute name="${a}"/><Value>allow</Value></AttributeValuePair>\n`).join('')}    </Rule>\n`,
    )
    .join('');
  return `  <Policy name="${escapeXml(p.name)}" referralPolicy="false" active="true">
${rules}    <Subjects name="subjects" description="">
${p.subjects.map(subjectXml).join('')}    </Subjects>
  </Policy>\n`;
}

/** An OpenSSO policy document, as the policy service answered it (and as it can be posted back). */
export function writeOpenSsoPolicies(policies: OpenSsoPolicy[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${DOCTYPE}\n<Policies>\n${policies.map(policyXml).join('')}</Policies>\n`;
}
