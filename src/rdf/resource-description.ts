import type * as RDF from '@rdfjs/types';
import { df, literal, rdf, xsd } from './namespaces.ts';

/** What a property's values are: text and IRIs as strings, numbers, truth values, instants. */
export type ValueKind = 'text' | 'iri' | 'integer' | 'number' | 'boolean' | 'date';
type ValueOf<K extends ValueKind> = K extends 'text' | 'iri' ? string : K extends 'integer' | 'number' ? number : K extends 'boolean' ? boolean : Date;

/** How many values a field holds: at most one, exactly one (always written), any number. */
export type Cardinality = 'optional' | 'required' | 'many';

/** One field of a resource: the property it is stored under, its kind of value, how many. */
export interface PropertyDescription<K extends ValueKind = ValueKind, C extends Cardinality = Cardinality> {
  path: RDF.NamedNode;
  kind: K;
  cardinality: C;
}

/** Field builders: `optional('text', dc('title'))`, `required('iri', ot('predictionFeature'))`, `many('iri', owl('sameAs'))`. */
export const optional = <K extends ValueKind>(kind: K, path: RDF.NamedNode): PropertyDescription<K, 'optional'> => ({ path, kind, cardinality: 'optional' });
export const required = <K extends ValueKind>(kind: K, path: RDF.NamedNode): PropertyDescription<K, 'required'> => ({ path, kind, cardinality: 'required' });
export const many = <K extends ValueKind>(kind: K, path: RDF.NamedNode): PropertyDescription<K, 'many'> => ({ path, kind, cardinality: 'many' });

type Fields = Record<string, PropertyDescription>;
type Decoded<P> = P extends PropertyDescription<infer K, infer C> ? (C extends 'many' ? ValueOf<K>[] : C extends 'required' ? ValueOf<K> : ValueOf<K> | undefined) : never;

/** The record a description reads (an absent optional field left out, an absent list empty). */
export type RecordOf<F extends Fields> = { uri: string } & { [N in keyof F as F[N]['cardinality'] extends 'optional' ? never : N]: Decoded<F[N]> } & {
  [N in keyof F as F[N]['cardinality'] extends 'optional' ? N : never]?: Decoded<F[N]>;
};
/** What a description writes from (optional fields and lists may be left out). */
export type InputOf<F extends Fields> = { uri: string } & { [N in keyof F as F[N]['cardinality'] extends 'required' ? N : never]: Decoded<F[N]> } & {
  [N in keyof F as F[N]['cardinality'] extends 'required' ? never : N]?: Decoded<F[N]>;
};

/**
 * A resource type described once (in the spirit of LDkit's schemas): the class it is typed
 * with, and each field's property, kind and cardinality. From it come the record type
 * (`RecordOf`), the decoder of a graph, the encoder back to quads, and what the SHACL shape of
 * the type is checked against (test/unit/resource-descriptions.test.ts).
 */
export interface ResourceDescription<F extends Fields = Fields> {
  /** The classes every resource of this type is written with (`rdf:type`); the first is the one it is read as. */
  types: RDF.NamedNode[];
  fields: F;
  /**
   * The record of `uri` in `quads`, from its own statements only, whatever its type (`isOne`);
   * a graph this server did not write may lack a required field (`isComplete`).
   */
  decode(quads: RDF.Quad[], uri: string): RecordOf<F>;
  /** Is `uri` typed with `types[0]` in `quads`? */
  isOne(quads: RDF.Quad[], uri: string): boolean;
  /** Is it one, with every required field (a value of its kind)? */
  isComplete(quads: RDF.Quad[], uri: string): boolean;
  /** The statements of a record: its types, then each field given. */
  encode(record: InputOf<F>): RDF.Quad[];
}

export function describeResource<F extends Fields>(types: RDF.NamedNode[], fields: F): ResourceDescription<F> {
  return {
    types,
    fields,
    isOne(quads, uri) {
      return quads.some((q) => q.subject.termType === 'NamedNode' && q.subject.value === uri && q.predicate.equals(rdf('type')) && q.object.equals(types[0]));
    },
    isComplete(quads, uri) {
      if (!this.isOne(quads, uri)) return false;
      const record = this.decode(quads, uri) as Record<string, unknown>;
      return Object.entries(fields).every(([name, f]) => f.cardinality !== 'required' || record[name] !== undefined);
    },
    decode(quads, uri) {
      // its own statements by property, in one pass (a dataset's metadata has thousands of ot:hasColumn)
      const own = new Map<string, RDF.Term[]>();
      for (const q of quads) {
        if (q.subject.termType !== 'NamedNode' || q.subject.value !== uri || q.predicate.termType !== 'NamedNode') continue;
        const objects = own.get(q.predicate.value);
        if (objects) objects.push(q.object);
        else own.set(q.predicate.value, [q.object]);
      }
      const record: Record<string, unknown> = { uri };
      for (const [name, field] of Object.entries(fields)) {
        const values: unknown[] = [];
        for (const o of own.get(field.path.value) ?? []) {
          if (!fits(o, field.kind)) continue;
          const value = readValue(o, field.kind);
          if (value !== NONE) values.push(value);
        }
        if (field.cardinality === 'many') record[name] = values;
        else if (values.length) record[name] = values[0];
      }
      return record as RecordOf<F>;
    },
    encode(record) {
      const s = df.namedNode(record.uri);
      const quads = types.map((t) => df.quad(s, rdf('type'), t));
      const given = record as unknown as Record<string, unknown>;
      for (const [name, field] of Object.entries(fields)) {
        const value = given[name];
        // an IRI given as '' is none
        if (value === undefined || (field.kind === 'iri' && value === '')) {
          if (field.cardinality === 'required') throw new Error(`${name} is required`);
          continue;
        }
        for (const v of field.cardinality === 'many' ? (value as unknown[]) : [value]) if (field.kind !== 'iri' || v !== '') quads.push(df.quad(s, field.path, termOf(v, field.kind)));
      }
      return quads;
    },
  };
}

function fits(term: RDF.Term, kind: ValueKind): boolean {
  return kind === 'iri' ? term.termType === 'NamedNode' : term.termType === 'Literal';
}

/** What readValue answers for a term that is not one of its kind. */
const NONE = Symbol('none');

/** A term's value, or NONE when it is not one of the kind (a number or a date that does not read). */
function readValue(term: RDF.Term, kind: ValueKind): unknown {
  switch (kind) {
    case 'integer':
    case 'number': {
      const n = Number(term.value);
      return term.value.trim() === '' || Number.isNaN(n) ? NONE : n;
    }
    case 'boolean':
      return term.value === 'true' || term.value === '1';
    case 'date': {
      const d = new Date(term.value);
      return Number.isNaN(d.getTime()) ? NONE : d;
    }
    default:
      return term.value;
  }
}

function termOf(value: unknown, kind: ValueKind): RDF.Quad_Object {
  switch (kind) {
    case 'iri':
      return df.namedNode(String(value));
    case 'integer':
      return literal(String(value), xsd('integer'));
    case 'number':
      return literal(Number(value));
    case 'boolean':
      return literal(Boolean(value));
    case 'date':
      return literal(value as Date);
    default:
      return literal(String(value));
  }
}
