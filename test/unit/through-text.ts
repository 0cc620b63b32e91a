import type * as RDF from '@rdfjs/types';
import { Parser, Writer } from 'n3';

/** Quads through N-Quads text and back, as the store keeps and answers them (terms compared by value, not identity). */
export async function throughText(quads: RDF.Quad[]): Promise<RDF.Quad[]> {
  const text = await new Promise<string>((resolve, reject) => {
    const writer = new Writer({ format: 'N-Quads' });
    writer.addQuads(quads as never);
    writer.end((e, out) => (e ? reject(e) : resolve(out)));
  });
  return new Parser({ format: 'N-Quads' }).parse(text) as unknown as RDF.Quad[];
}
