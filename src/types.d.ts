declare module '@graphy/content.xml.scribe' {
  import type { Transform } from 'node:stream';
  export default function scribe(config?: { prefixes?: Record<string, string> }): Transform;
}
declare module 'shacl-engine' {
  export class Validator {
    constructor(shapes: unknown, options: { factory: unknown; details?: boolean });
    validate(data: { dataset: unknown; terms?: Iterable<unknown> }): Promise<any>;
  }
}
declare module '@rdfjs/dataset' {
  const dataset: { dataset(quads?: unknown[]): any };
  export default dataset;
}
declare module 'indigo-ketcher' {
  const moduleFn: () => Promise<any>;
  export default moduleFn;
}
declare module 'jstat' {
  const jstat: { jStat: { chisquare: { cdf(x: number, dof: number): number }; studentt: { cdf(x: number, dof: number): number; inv(p: number, dof: number): number } } };
  export default jstat;
}
declare module 'svg-to-pdfkit' {
  export default function SVGtoPDF(
    doc: unknown,
    svg: string,
    x: number,
    y: number,
    options?: { width?: number; height?: number; fontCallback?: (family: string, bold: boolean, italic: boolean) => string },
  ): void;
}
