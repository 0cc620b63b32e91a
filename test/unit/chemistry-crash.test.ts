import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Chemistry } from '../../src/chemistry/chemistry.ts';
import { HttpError } from '../../src/core/errors.ts';
import { isCrashMessage } from '../../src/task/worker-pool.ts';

/**
 * The toolkit of the main thread after a crash of RDKit's WebAssembly: the instance is thrown
 * away, the call answers an HttpError whose words the worker pool reads as a crash, and a fresh
 * RDKit answers the calls after. The crash is a real one (a chain too long for RDKit's stack),
 * made past Chemistry's own measure of its input, as a crash that nothing foresaw would be.
 */
function crashRdkitOf(chemistry: Chemistry): void {
  const rdkit = (chemistry as any).rdkit;
  assert.throws(() => rdkit.get_mol('C'.repeat(1000)), WebAssembly.RuntimeError);
}

test('after a crash of RDKit the call that meets it answers 400, and a fresh RDKit reads the next structure', async () => {
  const chemistry = await Chemistry.load({ indigo: false });
  crashRdkitOf(chemistry);
  const met = (() => {
    try {
      chemistry.fromSmiles('c1ccccc1O');
    } catch (e) {
      return e;
    }
  })();
  assert.ok(met instanceof HttpError, String(met));
  assert.equal(met.status, 400);
  assert.match(met.message, /the SMILES could not be read: RDKit failed on it \(WebAssembly crash: .*\); the toolkit has been restarted/);
  assert.ok(isCrashMessage(met.message));
  // while the fresh one loads: 503, never the broken one
  assert.throws(
    () => chemistry.fromSmiles('CCO'),
    (e: HttpError) => e.status === 503,
  );
  await chemistry.ready();
  assert.equal(chemistry.fromSmiles('OCC').smiles, 'CCO');
  assert.equal(chemistry.matchesEveryAtom('[#6]'), false);
  // a matcher made before a crash is not used with the RDKit after it
  const matcher = chemistry.substructureMatcher('c1ccccc1');
  const phenol = chemistry.fromSmiles('c1ccccc1O').searchable.pickle;
  assert.equal(matcher.matchesPickle(phenol), true);
  crashRdkitOf(chemistry);
  assert.throws(
    () => matcher.matchesPickle(phenol),
    (e: HttpError) => e.status === 400 && /SMARTS pattern could not be matched/.test(e.message),
  );
  await chemistry.ready();
  assert.throws(() => matcher.matchesPickle(phenol), /thrown away after a crash/);
  matcher.close();
  assert.equal(chemistry.substructureMatcher('c1ccccc1').matchesPickle(phenol), true);
});

test('structures and patterns beyond structure-limits.ts are refused before RDKit reads them, naming the input and the limit', async () => {
  const chemistry = await Chemistry.load({ indigo: false });
  assert.throws(() => chemistry.fromSmiles('C'.repeat(1000), 'SMILES on line 4'), /the SMILES on line 4 has 1000 atoms other than hydrogen; a structure may have at most 500/);
  assert.throws(() => chemistry.morgan('C'.repeat(5000)), /the structure is 5000 characters long; a SMILES may have at most 4000/);
  assert.throws(() => chemistry.matchesEveryAtom(`${'[$('.repeat(11)}C${')]'.repeat(11)}`, 'parameter smarts'), /the parameter smarts nests recursive SMARTS .* 11 deep/);
  assert.throws(() => chemistry.substructureMatcher('C'.repeat(201)), /the SMARTS pattern has 201 atoms/);
  const standardised = chemistry.standardise('C'.repeat(600));
  assert.equal(standardised.ok, false);
  assert.match((standardised as { error: string }).error, /600 atoms other than hydrogen/);
  // the limits themselves are read: a chain of 500 atoms, a pattern of 200 atoms nested 10 deep
  assert.equal(chemistry.fromSmiles('C'.repeat(500)).atoms, 500);
  assert.equal(chemistry.matchesEveryAtom(`${'[$('.repeat(10)}${'C'.repeat(190)}${')]'.repeat(10)}`), false);
  // and RDKit is whole after all of them
  assert.equal(chemistry.fromSmiles('OCC').smiles, 'CCO');
});
