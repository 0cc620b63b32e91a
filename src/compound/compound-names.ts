import type { StructureInput } from '../chemistry/structure-reader.ts';
import { CANNOT_PARSE, type NameParse, type OpsinNameParser } from '../chemistry/opsin-name-parser.ts';
import { nameTextProblem } from '../chemistry/structure-limits.ts';

/** Names sent to OPSIN at once: an upload's chunk goes in a few round trips, leaving room in OPSIN's queue for other requests. */
const NAMES_AT_ONCE = 256;
/** Compounds named in the words for a name that several compounds here have. */
const NAMED_COMPOUNDS_SHOWN = 3;

/** What CompoundNames needs of the compound registry: the compounds holding a name, and a compound's SMILES. */
export interface NamedCompounds {
  named(name: string): Promise<string[]>;
  smilesOf(uri: string): Promise<string | undefined>;
}

/**
 * Chemical names as structures (spec 4.10, `text/plain`): a systematic (IUPAC) name is parsed by
 * OPSIN; a name OPSIN cannot parse (a trivial or trade name) is looked up in the names this store
 * holds, and stands for the one compound that has it. OPSIN comes first because a systematic name
 * describes one structure whatever this store holds, where a name held here is a label someone
 * attached (it may be wrong, or on several compounds); the look-up after it costs a map read. The
 * answer is a SMILES, which the structure pipeline reads as any other, so a name gives the URI
 * its structure has.
 */
export class CompoundNames {
  private readonly opsin: OpsinNameParser;
  private readonly compounds: NamedCompounds;
  constructor(opsin: OpsinNameParser, compounds: NamedCompounds) {
    this.opsin = opsin;
    this.compounds = compounds;
  }

  /** Why systematic names cannot be parsed here (no Java, no OPSIN); undefined when they can. */
  get unavailable(): string | undefined {
    return this.opsin.unavailable;
  }

  /** The SMILES of each name input (its `what` names it in the words), in order, or why there is none; a cancelled upload (`signal`) sends OPSIN no more. */
  async smilesOf(inputs: StructureInput[], signal?: AbortSignal): Promise<NameParse[]> {
    const answers: NameParse[] = new Array(inputs.length);
    const toParse: number[] = [];
    inputs.forEach((input, i) => {
      const problem = nameTextProblem(input.text, input.what);
      if (problem) answers[i] = { error: problem };
      else toParse.push(i);
    });
    const offline = this.opsin.unavailable;
    for (let at = 0; at < toParse.length; at += NAMES_AT_ONCE) {
      signal?.throwIfAborted();
      const part = toParse.slice(at, at + NAMES_AT_ONCE);
      const parsed = offline ? [] : await this.opsin.parse(part.map((i) => inputs[i].text));
      for (const [k, i] of part.entries()) {
        const parse = parsed[k];
        answers[i] = parse && 'smiles' in parse ? parse : await this.held(inputs[i], parse?.error);
      }
    }
    return answers;
  }

  /** A name OPSIN did not parse (`opsinSaid`): the structure of the one compound here that has it. */
  private async held(input: StructureInput, opsinSaid?: string): Promise<NameParse> {
    const uris = await this.compounds.named(input.text);
    const smiles = uris.length === 1 ? await this.compounds.smilesOf(uris[0]) : undefined;
    if (smiles) return { smiles };
    const name = `${input.what} ${JSON.stringify(input.text)}`;
    const offline = this.opsin.unavailable;
    const holders =
      uris.length > 1
        ? `${uris.length} compounds here have it (${uris.slice(0, NAMED_COMPOUNDS_SHOWN).join(', ')}${uris.length > NAMED_COMPOUNDS_SHOWN ? ', …' : ''}); post the structure instead`
        : '';
    if (offline)
      return {
        error: `${name} is ${holders ? 'not the name of one compound here' : 'not the name of a compound here'}, and systematic names cannot be parsed on this server (${offline})${holders ? `: ${holders}` : ''}`,
      };
    const opsin = `a systematic name OPSIN can parse${opsinSaid && opsinSaid !== CANNOT_PARSE ? ` (${opsinSaid})` : ''}`;
    return { error: holders ? `${name} is not ${opsin}, and ${holders}` : `${name} is neither ${opsin} nor the name of a compound here` };
  }
}
