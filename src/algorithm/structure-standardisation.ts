import type * as RDF from '@rdfjs/types';
import { FLAG_DESCRIPTIONS, STANDARDISATION_RULES, type StandardisationFlag, type StandardisationOptions } from '../chemistry/standardisation.ts';
import type { ParameterSpec } from '../learning/learner.ts';
import { literal } from '../rdf/namespaces.ts';

/**
 * Structure standardisation as an algorithm of the catalogue (spec 2.4 `DataCleanup`, ota:
 * `StructureStandardisation`): applied to a dataset it answers a new dataset whose rows hold the
 * QSAR-ready parents of their structures (chemistry/standardisation.ts), with curation columns.
 * Unlike the other cleanups it makes no filtering model: every row is kept, and rows that end up
 * with the same parent are reported, never merged.
 */
export const STRUCTURE_STANDARDISATION = {
  id: 'standardise-structures',
  title: 'Standardise structures (QSAR-ready parents)',
  description: [
    "Answers a new dataset (the source untouched) in which each row's compound is replaced by its QSAR-ready parent structure, the source's columns kept, with four curation columns: original structure (the row's structure before standardisation), standardised structure (the parent's SMILES as written, with explicit hydrogens when asked for), standardisation rules (the rules that changed something) and standardisation flags.",
    'Every row is kept: rows whose parents are the same compound are reported in the warnings with the values they disagree on, never merged or averaged; a row whose structure cannot be standardised keeps its compound, is flagged unparseable and is named in the warnings.',
    `Rules, in order: ${STANDARDISATION_RULES.map((r) => `${r.name}: ${r.description}`).join('; ')}.`,
    `Flags: ${Object.entries(FLAG_DESCRIPTIONS)
      .map(([flag, text]) => `${flag}: ${text}`)
      .join('; ')}.`,
  ].join(' '),
  types: ['DataCleanup', 'StructureStandardisation'],
  parameters: [
    { name: 'stereo', description: 'keep, or remove every tetrahedral and double-bond stereo mark', type: 'string', default: 'keep', choices: ['keep', 'remove'] },
    { name: 'isotopes', description: 'keep, or remove isotope labels ([13C] → C, [2H] → H)', type: 'string', default: 'keep', choices: ['keep', 'remove'] },
    {
      name: 'hydrogens',
      description: 'implicit: hydrogen atoms given explicitly are folded into their heavy atoms; explicit: the standardised structure column writes every hydrogen as an atom',
      type: 'string',
      default: 'implicit',
      choices: ['implicit', 'explicit'],
    },
  ] as ParameterSpec[],
};

/** The options in words, "stereo keep, isotopes keep, hydrogens implicit" (a standardised dataset's description, and what a model says of its standardisation). */
export function standardisationText(options: StandardisationOptions): string {
  return STRUCTURE_STANDARDISATION.parameters.map((p) => `${p.name} ${options[p.name as keyof StandardisationOptions] ?? p.default}`).join(', ');
}

/** The options as a standardised dataset records them (`ot:algorithmParams`: "stereo=keep;isotopes=keep;hydrogens=implicit"). */
export function standardisationParams(options: StandardisationOptions): string {
  return STRUCTURE_STANDARDISATION.parameters.map((p) => `${p.name}=${options[p.name as keyof StandardisationOptions] ?? p.default}`).join(';');
}

/** The curation columns, by what they hold: a feature URI each. */
export interface CurationFeatures {
  original: string;
  parent: string;
  rules: string;
  flags: string;
}

/** Their titles and descriptions (the features are made by the algorithm, ot:hasSource it). */
export const CURATION_COLUMNS: Record<keyof CurationFeatures, { title: string; description: string }> = {
  original: { title: 'original structure', description: "the row's structure before standardisation (RDKit canonical SMILES)" },
  parent: { title: 'standardised structure', description: 'the QSAR-ready parent as the standardisation wrote it (RDKit canonical SMILES)' },
  rules: { title: 'standardisation rules', description: 'the standardisation rules that changed the structure, in the order they ran (none: the structure was already its parent)' },
  flags: { title: 'standardisation flags', description: `what a model should not be trained on blindly: ${Object.keys(FLAG_DESCRIPTIONS).join(', ')} (see the algorithm's description)` },
};

/** What standardising one row's structure gave. */
export type RowOutcome = { ok: true; compound: string; parent: string; original: string; rules: string[]; flags: StandardisationFlag[] } | { ok: false; original?: string; error: string };

export interface CurationInput {
  rows: { compound: string; values: Map<string, RDF.Literal> }[];
  /** One per row, in order. */
  outcomes: RowOutcome[];
  /** The source's features the new dataset keeps, in order. */
  kept: string[];
  features: CurationFeatures;
  /** Feature titles for the warnings (a feature without one is named by its URI). */
  titles: Map<string, string>;
}

export interface Curated {
  rows: { compound: string; values: [string, RDF.Literal][] }[];
  warnings: string[];
  /** What was done, in a sentence (the new dataset's description). */
  summary: string;
}

/**
 * The new dataset's rows and warnings: each row with its parent compound (its own compound when
 * it could not be standardised), its kept values and its curation values. Rows numbered from 1,
 * as in the new dataset (and the source: the order is the same).
 */
export function curate({ rows, outcomes, kept, features, titles }: CurationInput): Curated {
  const warnings: string[] = [];
  const out = rows.map((r, i) => {
    const o = outcomes[i];
    const values: [string, RDF.Literal][] = kept.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!]);
    if (o.original) values.push([features.original, literal(o.original)]);
    if (!o.ok) {
      warnings.push(`row ${i + 1}: the structure of ${r.compound} cannot be standardised (${o.error}); the row keeps its compound, flagged unparseable`);
      values.push([features.flags, literal('unparseable')]);
      return { compound: r.compound, values };
    }
    values.push([features.parent, literal(o.parent)]);
    if (o.rules.length) values.push([features.rules, literal(o.rules.join(', '))]);
    if (o.flags.length) values.push([features.flags, literal(o.flags.join(', '))]);
    return { compound: o.compound, values };
  });
  const groups = new Map<string, number[]>();
  outcomes.forEach((o, i) => {
    if (!o.ok) return;
    const members = groups.get(o.compound);
    if (members) members.push(i);
    else groups.set(o.compound, [i]);
  });
  // the same source compound in several rows was said at upload: a parent is news when it joins different ones
  const shared = [...groups].filter(([, members]) => new Set(members.map((i) => rows[i].compound)).size > 1);
  for (const [compound, members] of shared) {
    const parent = (outcomes[members[0]] as Extract<RowOutcome, { ok: true }>).parent;
    warnings.push(
      `${rowList(members)} have the same parent structure (${compound}, ${parent}), every row kept${disagreement(
        members.map((i) => rows[i]),
        kept,
        titles,
      )}`,
    );
  }
  const changed = out.filter((r, i) => r.compound !== rows[i].compound).length;
  const failed = outcomes.filter((o) => !o.ok).length;
  const summary =
    `${rows.length} row(s): ${changed} got another compound as their parent, ${rows.length - changed - failed} kept their compound (already the parent, or a tautomer the standard InChI does not tell apart), ${failed} not standardised (flagged unparseable); ` +
    `${shared.length} parent structure(s) shared by more than one row (see the warnings; values never merged)`;
  return { rows: out, warnings: warnings.sort((a, b) => firstRow(a) - firstRow(b)), summary };
}

/** How many rows and values a warning names before it counts the rest. */
const NAMED = 20;

/** "rows 3 and 7", "rows 3, 7 and 9", "rows 1, 2, … and 40 more" (numbered from 1). */
function rowList(indices: number[]): string {
  const n = indices.map((i) => String(i + 1));
  if (n.length > NAMED) return `rows ${n.slice(0, NAMED).join(', ')} and ${n.length - NAMED} more`;
  return `rows ${n.slice(0, -1).join(', ')} and ${n[n.length - 1]}`;
}

const firstRow = (warning: string) => Number(/^rows? (\d+)/.exec(warning)?.[1] ?? 0);

/** "; their values of LC50 disagree (1.5, 2.0)", "; their values agree", or nothing without features. */
function disagreement(rows: { values: Map<string, RDF.Literal> }[], kept: string[], titles: Map<string, string>): string {
  const differing = kept.flatMap((f) => {
    const values = [...new Set(rows.map((r) => r.values.get(f)?.value.trim()).filter((v): v is string => !!v))];
    const named = values.length > NAMED ? `${values.slice(0, NAMED).join(', ')} and ${values.length - NAMED} more` : values.join(', ');
    return values.length > 1 ? [{ name: titles.get(f) ?? f, values: `(${named})` }] : [];
  });
  if (!differing.length) return kept.length ? '; their values agree' : '';
  if (differing.length === 1) return `; their values of ${differing[0].name} disagree ${differing[0].values}`;
  const each = differing.map((d) => `${d.name} ${d.values}`);
  return `; their values of ${each.slice(0, -1).join(', ')} and ${each[each.length - 1]} disagree`;
}
