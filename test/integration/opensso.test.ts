import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { DOMParser } from '@xmldom/xmldom';
import { startTestServer, http, form, errorReport, type TestServer, type Reply } from '../helpers.ts';
import { POLICIES_GRAPH } from '../../src/auth/auth-codec.ts';

/**
 * The OpenSSO services the OpenTox AA 1.2 clients call (issue 54), as those clients send them:
 * the identity services under /opensso/identity, and the policy service at /pol and
 * /Pol/opensso-pol with its parameters as headers (AMBIT's opentox-opensso, opentox-ruby's
 * RestClient) or in the query.
 */

const DTD = '<!DOCTYPE Policies PUBLIC "-//Sun Java System Access Manager7.1 2006Q3  Admin CLI DTD//EN" "jar://com/sun/identity/policy/policyAdmin.dtd">';

/** A policy document as the OpenTox clients' templates write it: one Policy per subject, a rule of actions on one URI. */
function policyXml(policies: { name: string; uri: string; actions: string[]; subject: string; type?: string }[], doctype = DTD): string {
  const one = (p: (typeof policies)[number]) => `
    <Policy name="${p.name}" referralPolicy="false" active="true">
        <Rule name="rule_${p.name}">
            <ServiceName name="iPlanetAMWebAgentService"/>
            <ResourceName name="${p.uri}"/>
${p.actions.map((a) => `            <AttributeValuePair>\n                <Attribute name="${a}"/>\n                <Value>allow</Value>\n            </AttributeValuePair>`).join('\n')}
        </Rule>
        <Subjects name="subjects_${p.name}" description="">
            <Subject name="subject_${p.name}" type="${p.type ?? (p.subject.startsWith('uid=') ? 'LDAPUsers' : 'LDAPGroups')}" includeType="inclusive">
                <AttributeValuePair>
                    <Attribute name="Values"/>
                    <Value>${p.subject}</Value>
                </AttributeValuePair>
            </Subject>
        </Subjects>
    </Policy>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${doctype}\n<Policies>${policies.map(one).join('')}\n</Policies>\n`;
}

const user = (name: string) => `uid=${name},ou=people,dc=opentox,dc=org`;
const group = (name: string) => `cn=${name},ou=groups,dc=opentox,dc=org`;
const lines = (r: Reply) => r.text.split('\n').filter(Boolean);

async function login(s: TestServer, username: string, password: string): Promise<string> {
  // AMBIT's client signs in at {identity}/authenticate?uri=service=openldap
  const r = await http(`${s.url}/opensso/identity/authenticate?uri=service=openldap`, { method: 'POST', body: form({ username, password }) });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'text/plain');
  return /^token\.id=(\S+)$/m.exec(r.text)![1];
}

const isTokenValid = async (s: TestServer, token: string) => (await http(`${s.url}/opensso/identity/isTokenValid`, { method: 'POST', body: form({ tokenid: token }) })).text.trim();

describe('access control on (alice, bob; bob in the group readers)', () => {
  let s: TestServer;
  let admin: string;
  let alice: string;
  let bob: string;
  /** A dataset of alice's. */
  let dataset: string;
  const policies = async () => JSON.stringify((await s.services.store.readGraph(POLICIES_GRAPH)).map((q) => [q.subject.value, q.predicate.value, q.object.value]).sort());
  const as = (token: string, headers: Record<string, string> = {}) => ({ headers: { subjectid: token, ...headers } });
  const postPolicy = (token: string, body: string, contentType = 'application/xml') => http(`${s.url}/Pol/opensso-pol`, { method: 'POST', body, contentType, ...as(token) });
  const readable = async (token: string) => (await http(dataset.replace(s.base, s.url), { accept: 'text/csv', ...as(token) })).status;

  before(async () => {
    s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
    admin = await login(s, 'admin', 'admin-secret-1');
    for (const name of ['alice', 'bob']) assert.equal((await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), ...as(admin) })).status, 200);
    assert.equal((await http(`${s.url}/auth/group`, { method: 'POST', body: form({ name: 'readers', 'members[]': ['bob'] }), ...as(admin) })).status, 200);
    alice = await login(s, 'alice', 'alice-password');
    bob = await login(s, 'bob', 'bob-password');
    const created = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,LC50\nCCO,1.5\n', contentType: 'text/csv', accept: 'text/uri-list', ...as(alice) });
    assert.equal(created.status, 200, created.text);
    dataset = created.text.trim();
  });
  after(() => s.stop());

  test('identity: authenticate, isTokenValid, authorize, attributes and read in OpenSSO’s text', async () => {
    assert.equal(await isTokenValid(s, alice), 'boolean=true');
    assert.equal(await isTokenValid(s, 'forged'), 'boolean=false');
    const wrong = await http(`${s.url}/opensso/identity/authenticate`, { method: 'POST', body: form({ username: 'alice', password: 'nope' }) });
    assert.equal(wrong.status, 401);
    assert.equal((await errorReport(wrong)).code, 'Unauthorized');
    const authorize = (token: string) => http(`${s.url}/opensso/identity/authorize`, { method: 'POST', body: form({ uri: dataset, action: 'GET', subjectid: token }) }).then((r) => r.text);
    assert.equal(await authorize(alice), 'boolean=true\n');
    assert.equal(await authorize(bob), 'boolean=false\n');
    // AMBIT asks by GET with the token in the query; opentox-ruby's get_user posts a form
    const byGet = await http(`${s.url}/opensso/identity/attributes?subjectid=${encodeURIComponent(alice)}&attributes_names=uid`);
    assert.equal(byGet.status, 200, byGet.text);
    assert.equal(byGet.text, `userdetails.token.id=${alice}\nuserdetails.attribute.name=uid\nuserdetails.attribute.value=alice\n`);
    const byPost = await http(`${s.url}/opensso/identity/attributes`, { method: 'POST', body: form({ subjectid: bob }) });
    assert.deepEqual(lines(byPost), [
      `userdetails.token.id=${bob}`,
      'userdetails.attribute.name=uid',
      'userdetails.attribute.value=bob',
      'userdetails.attribute.name=cn',
      'userdetails.attribute.value=bob',
      'userdetails.attribute.name=sn',
      'userdetails.attribute.value=bob',
      'userdetails.role=id=readers,ou=group,dc=opentox,dc=org',
    ]);
    const noToken = await http(`${s.url}/opensso/identity/attributes`, { method: 'POST', body: form({ subjectid: 'forged' }) });
    assert.equal(noToken.status, 401);
    assert.ok(!noToken.text.includes('forged'), 'the token is never echoed in an error');
    // read: one's own record (opentox-ruby's list_user_groups gives its token as admin), any for an administrator
    const own = await http(`${s.url}/opensso/identity/read`, { method: 'POST', body: form({ name: 'bob', admin: bob, attributes_names: 'group' }) });
    assert.deepEqual(lines(own), ['identitydetails.name=bob', 'identitydetails.type=user', 'identitydetails.realm=dc=opentox,dc=org', 'identitydetails.group=readers', 'identitydetails.attribute=']);
    assert.equal((await http(`${s.url}/opensso/identity/read`, { method: 'POST', body: form({ name: 'bob', admin: alice }) })).status, 403);
    const byAdmin = await http(`${s.url}/opensso/identity/read?name=alice&admin=${encodeURIComponent(admin)}&attributes_names=uid`);
    assert.equal(
      byAdmin.text,
      'identitydetails.name=alice\nidentitydetails.type=user\nidentitydetails.realm=dc=opentox,dc=org\nidentitydetails.attribute=\nidentitydetails.attribute.name=uid\nidentitydetails.attribute.value=alice\n',
    );
    assert.equal((await http(`${s.url}/opensso/identity/read`, { method: 'POST', body: form({ name: 'nobody', admin }) })).status, 404);
    assert.equal((await http(`${s.url}/opensso/identity/read`, { method: 'POST', body: form({ admin }) })).status, 400);
  });

  test('the published logout (POST /opensso/identity/logout, subjectid=) ends the token', async () => {
    const token = await login(s, 'alice', 'alice-password');
    assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list', ...as(token) })).status, 200);
    const out = await http(`${s.url}/opensso/identity/logout`, { method: 'POST', body: form({ subjectid: token }) });
    assert.equal(out.status, 200, out.text);
    assert.equal(await isTokenValid(s, token), 'boolean=false');
    assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list', ...as(token) })).status, 401);
    assert.equal((await http(`${s.url}/opensso/identity/attributes`, { method: 'POST', body: form({ subjectid: token }) })).status, 401);
    assert.equal(await isTokenValid(s, alice), 'boolean=true', 'other tokens of the same user stay');
  });

  test('GET /pol: the caller’s names; uri (a header, or the query): the owner, then with polnames the names', async () => {
    const mine = await http(`${s.url}/pol`, as(alice));
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.type, 'text/plain');
    assert.ok(lines(mine).includes(dataset), 'a resource without a posted policy is named by its URI');
    assert.ok(!lines(await http(`${s.url}/pol`, as(bob))).includes(dataset), "bob does not list alice's");
    assert.equal((await http(`${s.url}/Pol/opensso-pol`, as(alice))).text, mine.text, 'the other path answers the same');
    assert.equal((await http(`${s.url}/pol`, as(alice, { uri: dataset }))).text, 'alice\n');
    assert.equal((await http(`${s.url}/pol?uri=${encodeURIComponent(dataset)}&polnames=true`, as(alice))).text, `alice\n${dataset}\n`);
    const asked = await http(`${s.url}/pol`, as(bob, { uri: dataset, polnames: 'true' }));
    assert.equal(asked.status, 403, 'bob may not read the dataset, nor learn who owns it');
    assert.equal((await errorReport(asked)).code, 'Forbidden');
    assert.equal((await http(`${s.url}/pol`, as(bob, { uri: `${s.base}/dataset/999999` }))).text, 'null\n', 'no policy: null, as OpenSSO answered');
    assert.equal((await http(`${s.url}/pol`, as(bob, { uri: 'http://elsewhere.example/dataset/1' }))).text, 'null\n');
    assert.equal((await http(`${s.url}/pol`)).status, 401);
    assert.equal((await http(`${s.url}/pol`, as('forged'))).status, 401);
  });

  test('a policy posted as OpenSSO XML is part of the resource’s policy: it shows in /auth/policy, bob reads, and only alice reads or deletes it', async () => {
    const name = 'member_read_dataset';
    const posted = await postPolicy(alice, policyXml([{ name, uri: dataset, actions: ['GET'], subject: group('readers') }]));
    assert.equal(posted.status, 200, posted.text);
    assert.equal(posted.text, `${name}\n`);
    assert.equal(await readable(bob), 200, 'a member of readers reads now');
    assert.equal((await http(dataset.replace(s.base, s.url), { method: 'DELETE', ...as(bob) })).status, 403, 'but changes nothing');
    const shown = await http(`${s.url}/auth/policy?uri=${encodeURIComponent(dataset)}`, { accept: 'text/turtle', ...as(alice) });
    assert.match(shown.text, new RegExp(`ot:policyName "${name}"`));
    assert.match(shown.text, /ot:readableBy "readers"/);
    assert.deepEqual(lines(await http(`${s.url}/pol`, as(alice, { uri: dataset, polnames: 'true' }))), ['alice', name]);
    assert.ok(lines(await http(`${s.url}/pol`, as(alice))).includes(name));
    // the policy read back (AMBIT's listPolicy: an id header) is OpenSSO XML that says the same
    const xml = await http(`${s.url}/pol`, as(alice, { id: name }));
    assert.equal(xml.status, 200, xml.text);
    assert.equal(xml.type, 'application/xml');
    const doc = new DOMParser().parseFromString(xml.text, 'text/xml');
    const policy = doc.getElementsByTagName('Policy')[0];
    assert.equal(policy.getAttribute('name'), name);
    assert.equal(doc.getElementsByTagName('ResourceName')[0].getAttribute('name'), dataset);
    assert.deepEqual(
      [...Array.from(doc.getElementsByTagName('Attribute'))].map((a) => a.getAttribute('name')),
      ['GET', 'Values'],
    );
    assert.equal(doc.getElementsByTagName('Subject')[0].getAttribute('type'), 'LDAPGroups');
    assert.equal(doc.getElementsByTagName('Value')[1].textContent, group('readers'));
    // bob may neither read, delete, nor give policies to alice's dataset
    assert.equal((await http(`${s.url}/pol`, as(bob, { id: name }))).status, 403);
    const before = await policies();
    assert.equal((await http(`${s.url}/pol`, { method: 'DELETE', ...as(bob, { id: name }) })).status, 403);
    assert.equal((await postPolicy(bob, policyXml([{ name: 'bob_takes', uri: dataset, actions: ['GET', 'POST', 'PUT', 'DELETE'], subject: user('bob') }]))).status, 403);
    assert.equal((await http(`${s.url}/pol?id=no-such-policy`, as(alice))).status, 404);
    // a name is taken once
    const again = await postPolicy(alice, policyXml([{ name, uri: dataset, actions: ['GET'], subject: group('readers') }]));
    assert.equal(again.status, 409);
    assert.equal(await policies(), before, 'the refusals wrote nothing');
    // DELETE /pol with an id header (AMBIT, opentox-ruby) takes back what it granted
    const deleted = await http(`${s.url}/pol`, { method: 'DELETE', ...as(alice, { id: name }) });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(await readable(bob), 403);
    assert.ok(!lines(await http(`${s.url}/pol`, as(alice))).includes(name));
    assert.doesNotMatch((await http(`${s.url}/auth/policy?uri=${encodeURIComponent(dataset)}`, { accept: 'text/turtle', ...as(alice) })).text, /readableBy|policyName/);
  });

  test('opentox-ruby’s default policy (the owner’s, and a group’s to read, in one document); a policy set through /auth/policy shows in /pol', async () => {
    const owners = 'policy_user_alice_1';
    const members = 'policy_group_readers_1';
    const posted = await postPolicy(
      alice,
      policyXml([
        { name: owners, uri: dataset, actions: ['GET', 'POST', 'PUT', 'DELETE'], subject: user('alice') },
        { name: members, uri: dataset, actions: ['GET'], subject: group('readers') },
      ]),
    );
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(lines(await http(`${s.url}/pol`, as(alice, { uri: dataset, polnames: 'true' }))), ['alice', members, owners], 'names in order');
    assert.equal(await readable(bob), 200);
    // the owner's policy reads back as the owner's rule
    const ownerXml = (await http(`${s.url}/pol?id=${owners}`, as(alice))).text;
    assert.match(ownerXml, /type="LDAPUsers"/);
    assert.match(ownerXml, /<Value>uid=alice,ou=people,dc=opentox,dc=org<\/Value>/);
    assert.match(ownerXml, /<Attribute name="DELETE"\/>/);
    // /auth/policy narrows the OpenSSO policies to what it grants: no group any more
    assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: dataset, public_read: 'true', group: '' }), ...as(alice) })).status, 200);
    assert.equal(await readable(bob), 200, 'every user reads now');
    assert.doesNotMatch((await http(`${s.url}/pol?id=${members}`, as(alice))).text, /LDAPGroups/);
    // the resource URI names the whole record: the owner's rule and who may read
    const whole = (await http(`${s.url}/pol?id=${encodeURIComponent(dataset)}`, as(alice))).text;
    assert.match(whole, new RegExp(`<Policy name="${dataset}#readers"`));
    assert.match(whole, /type="AuthenticatedUsers"/);
    // deleting it by the URI takes every grant back, and the posted policies with them
    assert.equal((await http(`${s.url}/pol?id=${encodeURIComponent(dataset)}`, { method: 'DELETE', ...as(alice) })).status, 200);
    assert.equal(await readable(bob), 403);
    assert.deepEqual(lines(await http(`${s.url}/pol`, as(alice, { uri: dataset, polnames: 'true' }))), ['alice', dataset]);
  });

  test('nobody claims a resource that has no owner yet: the next dataset id, through /Pol/opensso-pol or /auth/policy, is 404 and goes to its creator', async () => {
    const n = Number(/\/dataset\/(\d+)$/.exec(dataset)![1]);
    const made = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,LC50\nCCC,2\n', contentType: 'text/csv', accept: 'text/uri-list', ...as(alice) });
    const last = Number(/\/dataset\/(\d+)$/.exec(made.text.trim())![1]);
    assert.ok(last > n);
    const next = `${s.base}/dataset/${last + 1}`;
    const after = `${s.base}/dataset/${last + 2}`;
    const before = await policies();
    const claim = await postPolicy(bob, policyXml([{ name: 'bobs-claim', uri: next, actions: ['GET', 'DELETE'], subject: user('bob') }]));
    assert.equal(claim.status, 404, claim.text);
    const claim2 = await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: after }), ...as(bob) });
    assert.equal(claim2.status, 404, claim2.text);
    assert.equal(await policies(), before, 'nothing written');
    for (const expected of [next, after]) {
      const uri = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,LC50\nCCCC,3\n', contentType: 'text/csv', accept: 'text/uri-list', ...as(alice) })).text.trim();
      assert.equal(uri, expected);
      assert.equal((await http(uri.replace(s.base, s.url), { accept: 'text/csv', ...as(alice) })).status, 200, 'the creator reads it');
      assert.equal((await http(uri.replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 403, 'the claimant does not');
    }
  });

  test('refused documents answer 400 with a report and write nothing: malformed XML, entities, external references, what a policy here cannot say', async () => {
    const good = (name: string) => ({ name, uri: dataset, actions: ['GET'], subject: group('readers') });
    const cases: [string, string, RegExp][] = [
      ['not XML', 'Policies', /not a well-formed policy document/],
      ['cut short', policyXml([good('cut')]).slice(0, 300), /not a well-formed/],
      ['two roots', `${policyXml([good('two')])}<Policies/>`, /not a well-formed/],
      ['another root', '<Policy name="x"/>', /root element is Policy/],
      ['no Policy', '<Policies/>', /no Policy/],
      ['a name XML cannot carry (a lone surrogate)', policyXml([good('a&#xD800;b')]), /lone surrogate/],
      ['a name XML cannot carry (U+FFFE)', policyXml([good('a\uFFFEb')]), /U\+FFFE/],
      ['an internal entity', policyXml([good('ent')], '<!DOCTYPE Policies [<!ENTITY e "readers">]>').replace('cn=readers', 'cn=&e;'), /DOCTYPE with entity declarations/],
      [
        'billion laughs',
        `<?xml version="1.0"?>\n<!DOCTYPE Policies [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n<Policies><Policy name="&c;"/></Policies>`,
        /DOCTYPE with entity declarations/,
      ],
      ['an external entity', policyXml([good('xxe')], '<!DOCTYPE Policies [<!ENTITY x SYSTEM "file:///etc/passwd">]>').replace('cn=readers', 'cn=&x;'), /DOCTYPE with entity declarations/],
      ['an external DTD', policyXml([good('dtd')], '<!DOCTYPE Policies SYSTEM "http://127.0.0.1:1/evil.dtd">'), /other external references/],
      ['a parameter entity', policyXml([good('pe')], '<!DOCTYPE Policies [<!ENTITY % p SYSTEM "http://127.0.0.1:1/p.dtd"> %p;]>'), /DOCTYPE with entity declarations/],
      ['an undeclared entity', policyXml([good('undeclared')]).replace('cn=readers', '&nbsp;cn=readers'), /not a well-formed policy document: .*nbsp/],
      ['a user who is not the owner', policyXml([{ name: 'bob_too', uri: dataset, actions: ['GET'], subject: user('bob') }]), /bob is not the owner \(alice\)/],
      ['a group that may write', policyXml([{ ...good('write'), actions: ['GET', 'PUT'] }]), /may only be allowed GET/],
      ['an unknown group', policyXml([{ ...good('unknown'), subject: group('nobody') }]), /unknown group nobody/],
      ['a URI of another service', policyXml([{ ...good('elsewhere'), uri: 'http://elsewhere.example/dataset/1' }]), /not a resource of this service/],
      ['an unknown action', policyXml([{ ...good('patch'), actions: ['PATCH'] }]), /"PATCH" is not GET, POST, PUT or DELETE/],
      ['a deny', policyXml([good('deny')]).replace('<Value>allow</Value>', '<Value>deny</Value>'), /only allow is supported/],
      ['a subject type not supported', policyXml([{ ...good('role'), type: 'AMIdentitySubject' }]), /"AMIdentitySubject" are not supported/],
      ['a condition', policyXml([good('condition')]).replace('</Rule>', '</Rule><Conditions name="c"/>'), /Conditions is not supported/],
      ['a name with a line end', policyXml([good('a&#10;b')]), /a Policy needs a name/],
      // all or nothing: the first policy is good, the second is not
      ['a good policy and a bad one', policyXml([good('first_good'), { ...good('second_bad'), subject: group('nobody') }]), /second_bad: unknown group nobody/],
    ];
    const before = await policies();
    for (const [what, body, message] of cases) {
      const r = await postPolicy(alice, body);
      assert.equal(r.status, 400, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
      const report = await errorReport(r);
      assert.equal(report.code, 'InvalidInput', what);
      assert.match(report.message ?? '', message, what);
      assert.doesNotMatch(r.text, /root:|at \w+ \(/, `${what}: no file content, no stack`);
      assert.equal(await policies(), before, `${what} wrote nothing`);
    }
    assert.equal((await postPolicy(alice, policyXml([good('as a form')]), 'application/x-www-form-urlencoded')).status, 400);
    const huge = await postPolicy(alice, policyXml([good('huge')]).replace('<Policies>', `<Policies><!--${'x'.repeat(1100 * 1024)}-->`));
    assert.equal(huge.status, 413);
    assert.equal(await policies(), before);
    assert.equal(await readable(bob), 403);
  });
});

describe('access control off', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer(['--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  });
  after(() => s.stop());

  test('the identity services answer as /auth does: sign-in works for known users, and says that no request needs a token', async () => {
    const unknown = await http(`${s.url}/opensso/identity/authenticate`, { method: 'POST', body: form({ username: 'guest', password: 'guest' }) });
    assert.equal(unknown.status, 401);
    assert.match((await errorReport(unknown)).message ?? '', /access control is off/);
    const token = await login(s, 'admin', 'admin-secret-1');
    assert.equal(await isTokenValid(s, token), 'boolean=true');
    assert.match((await http(`${s.url}/opensso/identity/attributes?subjectid=${encodeURIComponent(token)}`)).text, /^userdetails\.attribute\.value=admin$/m);
    assert.equal((await http(`${s.url}/opensso/identity/attributes`)).status, 401);
    assert.equal((await http(`${s.url}/opensso/identity/logout`, { method: 'POST', body: form({ subjectid: token }) })).status, 200);
    assert.equal(await isTokenValid(s, token), 'boolean=false');
  });

  test('policies: a signed-in user’s are kept (they count once access control is on); a document is checked before the caller is asked for', async () => {
    const token = await login(s, 'admin', 'admin-secret-1');
    const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
    assert.equal((await http(`${s.url}/pol`)).status, 401, 'no caller, no policies');
    const xml = policyXml([{ name: 'everyone_reads', uri: dataset, actions: ['GET'], subject: '', type: 'AuthenticatedUsers' }]);
    const malformed = await http(`${s.url}/Pol/opensso-pol`, { method: 'POST', body: xml.slice(0, 200), contentType: 'application/xml' });
    assert.equal(malformed.status, 400);
    const anonymous = await http(`${s.url}/Pol/opensso-pol`, { method: 'POST', body: xml, contentType: 'application/xml' });
    assert.equal(anonymous.status, 401);
    // later opentox-client versions post to /pol
    const posted = await http(`${s.url}/pol`, { method: 'POST', body: xml, contentType: 'text/xml', headers: { subjectid: token } });
    assert.equal(posted.status, 200, posted.text);
    assert.match((await http(`${s.url}/auth/policy?uri=${encodeURIComponent(dataset)}`, { accept: 'text/turtle', headers: { subjectid: token } })).text, /ot:policyName "everyone_reads"/);
    assert.deepEqual(lines(await http(`${s.url}/pol?uri=${encodeURIComponent(dataset)}&polnames=true`, { headers: { subjectid: token } })), ['admin', 'everyone_reads']);
    assert.equal((await http(`${s.url}/Pol/opensso-pol?id=everyone_reads`, { method: 'DELETE', headers: { subjectid: token } })).status, 200);
    assert.equal((await http(`${s.url}/pol`, { headers: { subjectid: token } })).text, `${dataset}\n`);
    assert.equal((await http(dataset.replace(s.base, s.url), { accept: 'text/csv' })).status, 200, 'everything stays open');
  });
});

test('posted policies are kept: after a restart on the same store they are listed, read back and still grant', async () => {
  const flags = ['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1'];
  const first = await startTestServer(flags);
  const dataDir = first.dataDir;
  let dataset: string;
  try {
    const admin = await login(first, 'admin', 'admin-secret-1');
    const as = { headers: { subjectid: admin } };
    assert.equal((await http(`${first.url}/auth/user`, { method: 'POST', body: form({ username: 'carol', password: 'carol-password' }), ...as })).status, 200);
    assert.equal((await http(`${first.url}/auth/group`, { method: 'POST', body: form({ name: 'lab', 'members[]': ['carol'] }), ...as })).status, 200);
    dataset = (await http(`${first.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', accept: 'text/uri-list', ...as })).text.trim();
    const xml = policyXml([
      { name: 'owner_kept', uri: dataset, actions: ['GET', 'POST', 'PUT', 'DELETE'], subject: user('admin') },
      { name: 'lab_kept', uri: dataset, actions: ['GET'], subject: group('lab') },
    ]);
    assert.equal((await http(`${first.url}/Pol/opensso-pol`, { method: 'POST', body: xml, contentType: 'application/xml', ...as })).status, 200);
  } finally {
    await first.close();
  }
  const second = await startTestServer([...flags, '--base-url', first.base], dataDir);
  try {
    const admin = await login(second, 'admin', 'admin-secret-1');
    const carol = await login(second, 'carol', 'carol-password');
    assert.deepEqual(lines(await http(`${second.url}/pol`, { headers: { subjectid: admin, uri: dataset, polnames: 'true' } })), ['admin', 'lab_kept', 'owner_kept']);
    assert.match((await http(`${second.url}/pol`, { headers: { subjectid: admin, id: 'lab_kept' } })).text, /cn=lab,ou=groups/);
    assert.equal((await http(dataset.replace(second.base, second.url), { accept: 'text/csv', headers: { subjectid: carol } })).status, 200, 'the group still reads');
    assert.equal((await http(`${second.url}/pol?id=lab_kept`, { method: 'DELETE', headers: { subjectid: admin } })).status, 200);
    assert.equal((await http(dataset.replace(second.base, second.url), { accept: 'text/csv', headers: { subjectid: carol } })).status, 403);
  } finally {
    await second.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
