import { eachMolecule, forgetToolkitAfter, toolkit } from '../chemistry/descriptor-calculation.ts';
import { checkStructureText } from '../chemistry/structure-limits.ts';
import { isWasmCrash } from '../task/worker-pool.ts';

/**
 * Profiler rules matched against structures with RDKit, as pure functions of SMILES and SMARTS
 * for the worker pool (never the main thread). A rule matches a structure when one of its
 * `smarts` is found in it and none of its `unless` is; a rule without SMARTS matches nothing here
 * (a first-match profiler's "otherwise" is decided in profile.ts).
 */
export interface RulePatterns {
  smarts: string[];
  unless: string[];
}

/** This thread's parsed SMARTS, by text (the rule sets are few and small: kept for the thread's life). */
const queries = new Map<string, any>();

async function queryOf(smarts: string): Promise<any> {
  const known = queries.get(smarts);
  if (known) return known;
  checkStructureText('smarts', smarts, 'profiler SMARTS');
  const q = (await toolkit()).get_qmol(smarts);
  if (!q?.is_valid()) {
    q?.delete();
    throw new Error(`not a valid SMARTS pattern: ${JSON.stringify(smarts.slice(0, 80))}`);
  }
  queries.set(smarts, q);
  return q;
}

/** Per structure, per rule: whether it matches; null for a structure RDKit cannot read. A SMARTS RDKit cannot read is an error. */
export async function matchRules(smiles: string[], rules: RulePatterns[]): Promise<(boolean[] | null)[]> {
  try {
    const parsed: { smarts: any[]; unless: any[] }[] = [];
    for (const r of rules) parsed.push({ smarts: await Promise.all(r.smarts.map(queryOf)), unless: await Promise.all(r.unless.map(queryOf)) });
    const found = (mol: any, q: any) => mol.get_substruct_match(q) !== '{}';
    return await eachMolecule(smiles, (mol) => parsed.map((r) => r.smarts.some((q) => found(mol, q)) && !r.unless.some((q) => found(mol, q))));
  } catch (e) {
    forgetToolkitAfter(e);
    // queries of a module that crashed are not freed on it: the next call parses them on a fresh one
    if (isWasmCrash(e)) queries.clear();
    throw e;
  }
}

/** For each SMARTS, why RDKit cannot read it (undefined when it can): how the rule sets are checked. */
export async function smartsProblems(patterns: string[]): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = [];
  for (const p of patterns) {
    try {
      await queryOf(p);
      out.push(undefined);
    } catch (e) {
      out.push((e as Error).message);
    }
  }
  return out;
}
