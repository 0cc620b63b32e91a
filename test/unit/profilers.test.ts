import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { loadVocabularies } from '../../src/ontology/vocabularies.ts';
import type { TripleStore } from '../../src/store/triple-store.ts';
import { profilersFrom, type Profiler } from '../../src/profiler/profiler-rules.ts';
import { matchRules, smartsProblems } from '../../src/profiler/rule-matching.ts';
import { decide, profileFrom, profileQuads, type Profile } from '../../src/profiler/profile.ts';

/**
 * The profilers of issue 56 (ontology/profilers-*.ttl): every rule parses with RDKit and carries
 * its source; hand-checked structures match the alerts and groups they hold and not the others;
 * Verhaar's scheme decides by its first matching rule in rule order.
 */
const BB = 'http://www.opentox.org/profilers/benigni-bossa#';
const FG = 'http://www.opentox.org/profilers/functional-groups#';
const VH = 'http://www.opentox.org/profilers/verhaar#';
const TGP = 'http://www.opentox.org/profilers.owl#';

/** The rule sets as the server loads them: every Turtle file of ontology/ into the graph of its owl:Ontology. */
const loaded = (async () => {
  let graphs: Record<string, RDF.Quad[]> = {};
  const store = { replaceGraphs: async (g: Record<string, RDF.Quad[]>) => void (graphs = g) } as unknown as TripleStore;
  const { graphs: names } = await loadVocabularies(store, join(import.meta.dirname, '../../ontology'));
  return { names, profilers: profilersFrom(Object.values(graphs).flat()) };
})();

async function profiler(iri: string): Promise<Profiler> {
  const found = (await loaded).profilers.find((p) => p.iri === iri);
  assert.ok(found, `profiler ${iri} loaded`);
  return found;
}

/** The rules of a profiler that match a structure, by local name, and its decision. */
async function profile(iri: string, smiles: string): Promise<{ matched: string[]; category?: string; decidedBy?: string }> {
  const p = await profiler(iri);
  const [matches] = await matchRules(
    [smiles],
    p.rules.map((r) => ({ smarts: r.smarts, unless: r.unless })),
  );
  assert.ok(matches, `${smiles} read by RDKit`);
  const r = decide(p, matches);
  const local = (s?: string) => s?.split('#').pop();
  return { matched: r.matched.map((m) => local(m.iri)!), category: local(r.category?.iri), decidedBy: local(r.decidedBy?.iri) };
}

test('the three rule sets are loaded with the vocabularies, each rule with SMARTS that RDKit parses and a cited source', async () => {
  const { names, profilers } = await loaded;
  for (const g of ['http://www.opentox.org/profilers.owl', BB.slice(0, -1), FG.slice(0, -1), VH.slice(0, -1)]) assert.ok(names.includes(g), `graph ${g}`);
  assert.deepEqual(profilers.map((p) => p.iri).sort(), [`${BB}BenigniBossa`, `${FG}FunctionalGroups`, `${VH}Verhaar`]);
  for (const p of profilers) {
    assert.match(p.version, /\S/, `${p.label} has a version`);
    assert.ok(p.source?.citation, `${p.label} cites its source`);
    for (const r of p.rules) {
      assert.ok(r.otherwise || r.smarts.length, `${r.iri} has SMARTS`);
      assert.ok(r.source?.citation, `${r.iri} cites its source`);
      assert.ok(r.category, `${r.iri} has a category`);
    }
    const patterns = p.rules.flatMap((r) => [...r.smarts, ...r.unless]);
    const problems = await smartsProblems(patterns);
    assert.deepEqual(
      patterns.filter((_, i) => problems[i]),
      [],
      `${p.label}: SMARTS RDKit cannot read`,
    );
  }
  const bb = await profiler(`${BB}BenigniBossa`);
  assert.ok(bb.rules.length >= 30, `${bb.rules.length} Benigni–Bossa alerts`);
  assert.equal(bb.decision, 'all');
  for (const r of bb.rules) {
    assert.match(r.identifier ?? '', /^SA_\d+[a-z]*$/, r.iri);
    assert.ok([`${TGP}GenotoxicCarcinogen`, `${TGP}NongenotoxicCarcinogen`].includes(r.category!.iri), r.iri);
  }
  assert.equal(bb.rules.find((r) => r.identifier === 'SA_17')?.category?.iri, `${TGP}NongenotoxicCarcinogen`);
  assert.equal(bb.rules.find((r) => r.identifier === 'SA_27')?.category?.iri, `${TGP}GenotoxicCarcinogen`);
  const fg = await profiler(`${FG}FunctionalGroups`);
  assert.ok(fg.rules.length >= 30, `${fg.rules.length} functional groups`);
  assert.match(fg.source?.citation ?? '', /Ertl.*J Cheminform 2017, 9:36.*10\.1186\/s13321-017-0225-z/);
  const vh = await profiler(`${VH}Verhaar`);
  assert.equal(vh.decision, 'first');
  assert.match(vh.source?.citation ?? '', /Verhaar.*Chemosphere 1992, 25.*471/);
  // the decision order is explicit and strictly increasing; the last rule is the "otherwise"
  const orders = vh.rules.map((r) => r.order);
  assert.deepEqual(
    orders,
    [...orders].sort((a, b) => a - b),
  );
  assert.equal(new Set(orders).size, orders.length);
  assert.ok(vh.rules.at(-1)!.otherwise);
  assert.equal(vh.rules.at(-1)!.category?.iri, `${VH}Class5`);
});

test('Benigni–Bossa: hand-checked alerts, and none on structures without them', async () => {
  const cases: [string, string, string[]][] = [
    ['nitrobenzene', 'O=[N+]([O-])c1ccccc1', ['SA_27']],
    ['benzo[a]pyrene', 'c1ccc2c(c1)cc1ccc3cccc4ccc2c1c34', ['SA_18']],
    ['acridine', 'c1ccc2nc3ccccc3cc2c1', ['SA_19']],
    ['N-nitrosodimethylamine', 'CN(C)N=O', ['SA_21']],
    ['aniline', 'Nc1ccccc1', ['SA_28']],
    ['acetanilide', 'CC(=O)Nc1ccccc1', ['SA_28ter']],
    ['ethylene oxide', 'C1CO1', ['SA_7']],
    ['vinyl chloride', 'C=CCl', ['SA_4']],
    ['methyl methanesulfonate', 'COS(C)(=O)=O', ['SA_2']],
    ['acrolein', 'C=CC=O', ['SA_10']],
    ['formaldehyde', 'C=O', ['SA_11']],
    ['azobenzene', 'c1ccc(cc1)N=Nc1ccccc1', ['SA_29']],
    ['coumarin', 'O=c1ccc2ccccc2o1', ['SA_30']],
    ['thiourea', 'NC(N)=S', ['SA_17']],
    ['chlorobenzene', 'Clc1ccccc1', ['SA_31a']],
    ['ethanol', 'CCO', []],
    ['benzene', 'c1ccccc1', []],
    ['naphthalene (two rings: no PAH alert)', 'c1ccc2ccccc2c1', []],
    ['acetic acid', 'CC(=O)O', []],
    // the rulebase's exception: a sulfonic acid on the nitro group's ring
    ['3-nitrobenzenesulfonic acid', 'O=[N+]([O-])c1cccc(c1)S(=O)(=O)O', []],
  ];
  for (const [name, smiles, alerts] of cases) {
    assert.deepEqual((await profile(`${BB}BenigniBossa`, smiles)).matched, alerts, name);
  }
});

test('functional groups: hand-checked groups, and those the structure lacks not reported', async () => {
  const cases: [string, string, string[], string[]][] = [
    ['acetic acid', 'CC(=O)O', ['carboxylicAcid'], ['ester', 'alcohol', 'ketone', 'aldehyde']],
    ['ethyl acetate', 'CCOC(C)=O', ['ester'], ['carboxylicAcid', 'ether', 'ketone']],
    ['acetamide', 'CC(N)=O', ['amide'], ['primaryAmine', 'ketone']],
    ['ethylamine', 'CCN', ['primaryAmine'], ['secondaryAmine', 'tertiaryAmine', 'amide']],
    ['diethylamine', 'CCNCC', ['secondaryAmine'], ['primaryAmine', 'tertiaryAmine']],
    ['triethylamine', 'CCN(CC)CC', ['tertiaryAmine'], ['primaryAmine', 'secondaryAmine']],
    ['nitrobenzene', 'O=[N+]([O-])c1ccccc1', ['nitro', 'aromaticRing'], ['nitroso', 'amide']],
    ['acetone', 'CC(C)=O', ['ketone'], ['aldehyde', 'ester']],
    ['acetaldehyde', 'CC=O', ['aldehyde'], ['ketone']],
    ['ethanol', 'CCO', ['alcohol'], ['phenol', 'ether']],
    ['phenol', 'Oc1ccccc1', ['phenol', 'aromaticRing'], ['alcohol']],
    ['diethyl ether', 'CCOCC', ['ether'], ['alcohol', 'ester']],
    ['ethanethiol', 'CCS', ['thiol'], ['sulfide']],
    ['benzenesulfonic acid', 'OS(=O)(=O)c1ccccc1', ['sulfonicAcid'], ['sulfone']],
    ['acetonitrile', 'CC#N', ['nitrile'], ['isocyanate']],
    ['methyl isocyanate', 'CN=C=O', ['isocyanate'], ['isothiocyanate', 'nitrile']],
    ['bromochlorofluoroiodomethane', 'FC(Cl)(Br)I', ['organofluorine', 'organochlorine', 'organobromine', 'organoiodine'], []],
    ['methyl vinyl ketone', 'CC(=O)C=C', ['michaelAcceptor', 'ketone', 'alkene'], ['aldehyde']],
    ['propylene oxide', 'CC1CO1', ['epoxide'], ['alcohol']],
    ['azobenzene', 'c1ccc(cc1)N=Nc1ccccc1', ['azo'], ['hydrazine']],
  ];
  for (const [name, smiles, present, absent] of cases) {
    const { matched } = await profile(`${FG}FunctionalGroups`, smiles);
    for (const g of present) assert.ok(matched.includes(g), `${name}: ${g} (found ${matched})`);
    for (const g of absent) assert.ok(!matched.includes(g), `${name}: not ${g} (found ${matched})`);
  }
});

test('Verhaar: the first matching rule in rule order decides the class', async () => {
  const cases: [string, string, string, string][] = [
    ['ethanol', 'CCO', 'Class1', 'inert'],
    ['hexane', 'CCCCCC', 'Class1', 'inert'],
    ['chlorobenzene', 'Clc1ccccc1', 'Class1', 'inert'],
    ['acetone', 'CC(C)=O', 'Class1', 'inert'],
    ['phenol', 'Oc1ccccc1', 'Class2', 'phenol'],
    ['aniline', 'Nc1ccccc1', 'Class2', 'aniline'],
    ['acrolein (an aldehyde too: the Michael acceptor rule comes first)', 'C=CC=O', 'Class3', 'michaelAcceptor'],
    ['benzyl chloride', 'ClCc1ccccc1', 'Class3', 'activatedHalide'],
    // an epoxide is also an ether that class 1 would accept: class 3 is tried first
    ['ethylene oxide', 'C1CO1', 'Class3', 'epoxideAziridine'],
    ['carbaryl (a carbamate)', 'CNC(=O)Oc1cccc2ccccc12', 'Class4', 'carbamate'],
    // phosphorus is outside the scheme's elements: the class 4 rules come before the element rule
    ['parathion (an organophosphate)', 'CCOP(=S)(OCC)Oc1ccc(cc1)[N+]([O-])=O', 'Class4', 'organophosphorus'],
    ['tetramethylsilane', 'C[Si](C)(C)C', 'Class5', 'elements'],
    ['tributyltin chloride', 'CCCC[Sn](Cl)(CCCC)CCCC', 'Class5', 'elements'],
    ['acetamide (no rule applies)', 'CC(N)=O', 'Class5', 'notClassifiable'],
  ];
  for (const [name, smiles, category, rule] of cases) {
    const found = await profile(`${VH}Verhaar`, smiles);
    assert.deepEqual([found.category, found.decidedBy], [category, rule], name);
  }
  // every rule that matches is still listed, beside the one that decided
  assert.deepEqual((await profile(`${VH}Verhaar`, 'C=CC=O')).matched, ['michaelAcceptor', 'aldehyde']);
});

test('a stored profile is read back while the structure and every profiler version are the same; otherwise it is stale', async () => {
  const { profilers } = await loaded;
  const compound = 'http://localhost:8080/compound/7';
  const results = await Promise.all(
    profilers.map(async (p) => {
      const [m] = await matchRules(
        ['Oc1ccccc1'],
        p.rules.map((r) => ({ smarts: r.smarts, unless: r.unless })),
      );
      return decide(p, m!);
    }),
  );
  const made: Profile = { compound, smiles: 'Oc1ccccc1', created: new Date('2026-11-28T12:00:00Z'), results };
  const quads = profileQuads(made);
  // the compound carries its rules and classes in its profile graph: one triple pattern finds it
  assert.ok(quads.some((q) => q.subject.value === compound && q.predicate.value === `${TGP}matchedRule` && q.object.value === `${FG}phenol`));
  assert.ok(quads.some((q) => q.subject.value === compound && q.predicate.value === `${TGP}assignedCategory` && q.object.value === `${VH}Class2`));
  const read = profileFrom(quads, compound, 'Oc1ccccc1', profilers);
  assert.deepEqual(
    read?.results.map((r) => [r.profiler.iri, r.matched.map((m) => m.iri), r.decidedBy?.iri]),
    results.map((r) => [r.profiler.iri, r.matched.map((m) => m.iri), r.decidedBy?.iri]),
  );
  assert.equal(read?.created.toISOString(), '2026-11-28T12:00:00.000Z');
  assert.equal(profileFrom(quads, compound, 'Nc1ccccc1', profilers), undefined, 'another structure');
  const newer = profilers.map((p) => (p.iri === `${BB}BenigniBossa` ? { ...p, version: `${p.version}.1` } : p));
  assert.equal(profileFrom(quads, compound, 'Oc1ccccc1', newer), undefined, 'another version of a profiler');
});
