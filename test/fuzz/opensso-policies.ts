import fc from 'fast-check';
import { HOSTILE_TOKENS, mutated, tokenSoup } from './mutations.ts';
import type { FuzzRequest, FuzzTarget } from './fuzz-targets.ts';

/**
 * OpenSSO policy documents for the fuzzer (issue 54), posted to the policy service as the
 * OpenTox AA 1.2 clients post them (`/Pol/opensso-pol`, and `/pol` of later clients):
 * documents of those clients' templates, mutated; and documents whose DOCTYPE declares entities
 * (the billion laughs, external entities naming files and addresses, parameter entities) or
 * names another DTD, with references to them put where the reader looks. Every one answers 4xx
 * with a report (the fuzzed server has no users: a well-formed document is refused for want of
 * a caller after it is read) and writes nothing; none reads a file or opens a connection.
 */
const DTD = '<!DOCTYPE Policies PUBLIC "-//Sun Java System Access Manager7.1 2006Q3  Admin CLI DTD//EN" "jar://com/sun/identity/policy/policyAdmin.dtd">';

function document(dataset: string, doctype: string, name = 'policy_user_fuzz', value = 'uid=fuzz,ou=people,dc=opentox,dc=org'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
${doctype}
<Policies>
  <Policy name="${name}" referralPolicy="false" active="true">
    <Rule name="rule_fuzz">
      <ServiceName name="iPlanetAMWebAgentService"/>
      <ResourceName name="${dataset}"/>
      <AttributeValuePair><Attribute name="GET"/><Value>allow</Value></AttributeValuePair>
      <AttributeValuePair><Attribute name="DELETE"/><Value>allow</Value></AttributeValuePair>
    </Rule>
    <Subjects name="subjects_fuzz" description="">
      <Subject name="subject_fuzz" type="LDAPUsers" includeType="inclusive">
        <AttributeValuePair><Attribute name="Values"/><Value>${value}</Value></AttributeValuePair>
      </Subject>
      <Subject name="everyone" type="AuthenticatedUsers" includeType="inclusive"/>
    </Subjects>
  </Policy>
</Policies>
`;
}

const TOKENS = [
  '<Policies>',
  '</Policies>',
  '<Policy name="p">',
  '</Policy>',
  '<Rule>',
  '</Rule>',
  '<ResourceName name="',
  '"/>',
  '<AttributeValuePair>',
  '<Attribute name="GET"/>',
  '<Value>allow</Value>',
  '<Subjects>',
  '<Subject type="LDAPGroups">',
  '<![CDATA[',
  ']]>',
  '<!--',
  '-->',
  '<?xml version="1.0"?>',
  '&amp;',
  '&#10;',
  '&#0;',
  '&x;',
  '%p;',
  '<',
  '>',
  '"',
  '=',
];

/** DOCTYPEs that declare entities or reach outside the document, and where their references go. */
const ENTITY_DOCTYPES = [
  '<!DOCTYPE Policies [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY x "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>',
  '<!DOCTYPE Policies [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
  '<!DOCTYPE Policies [<!ENTITY x SYSTEM "http://127.0.0.1:1/x">]>',
  '<!DOCTYPE Policies [<!ENTITY % p SYSTEM "http://127.0.0.1:1/p.dtd"> %p;]>',
  '<!DOCTYPE Policies [<!ENTITY x "uid=fuzz,ou=people,dc=opentox,dc=org">]>',
  '<!DOCTYPE Policies SYSTEM "file:///etc/passwd">',
  '<!DOCTYPE Policies PUBLIC "-//Sun Java System Access Manager7.1 2006Q3  Admin CLI DTD//EN" "http://127.0.0.1:1/policyAdmin.dtd">',
  `${DTD.slice(0, -1)} [<!ENTITY x "fuzz">]>`,
  '<!DOCTYPE Other>',
  DTD,
];

const entityDocuments = (dataset: string): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom(...ENTITY_DOCTYPES), fc.constantFrom('name', 'value', 'resource', 'none'))
    .map(([doctype, where]) =>
      where === 'name'
        ? document(dataset, doctype, '&x;')
        : where === 'value'
          ? document(dataset, doctype, undefined, '&x;')
          : where === 'resource'
            ? document(`${dataset}&x;`, doctype)
            : document(dataset, doctype),
    );

export function openSsoPolicyTargets(dataset: string): FuzzTarget[] {
  const post = (body: string, path: string, contentType: string): FuzzRequest => ({ method: 'POST', path, contentType, body });
  const where = fc.tuple(fc.constantFrom('/Pol/opensso-pol', '/pol'), fc.constantFrom('application/xml', 'text/xml'));
  const seeds = [document(dataset, DTD), document(dataset, ''), document(dataset, DTD, 'policy_group_member', 'cn=member,ou=groups,dc=opentox,dc=org')];
  return [
    {
      name: 'OpenSSO policy XML (malformed)',
      input: fc
        .tuple(fc.oneof({ weight: 4, arbitrary: mutated(seeds) }, { weight: 1, arbitrary: tokenSoup([...TOKENS, ...HOSTILE_TOKENS], 40) }), where)
        .map(([body, [path, type]]) => post(body, path, type)),
    },
    {
      name: 'OpenSSO policy XML with entities or external references',
      input: fc
        .tuple(fc.oneof({ weight: 2, arbitrary: entityDocuments(dataset) }, { weight: 1, arbitrary: entityDocuments(dataset).chain((d) => mutated([d])) }), where)
        .map(([body, [path, type]]) => post(body, path, type)),
    },
  ];
}
