/**
 * Characters that XML 1.0 cannot carry (its `Char` production): the C0 controls other than tab,
 * line feed and carriage return, U+FFFE, U+FFFF, and UTF-16 surrogates that are not part of a
 * pair. RDF/XML (and so every dataset, feature and literal served as RDF/XML) cannot hold them,
 * so text is checked once, where it comes in, with this one function.
 *
 * A surrogate is refused only when it is not half of a pair (the look-arounds). The expression
 * has no `u` flag on purpose: with it V8 searches ASCII text some fifteen times slower (45 MiB:
 * 280 ms against 17 ms), and the text of a whole upload is searched with it.
 */
const NON_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The index (UTF-16 code unit) of the first character XML 1.0 cannot represent, or -1. */
export function firstNonXmlChar(text: string): number {
  return text.search(NON_XML_CHAR);
}

/** True when every character of `text` can be written in XML 1.0. */
export function isXmlText(text: string): boolean {
  return !NON_XML_CHAR.test(text);
}

/** The character at `index` as a reader can name it: `U+0000`, `U+FFFE`, `U+D800 (a lone surrogate)`. */
export function describeCharAt(text: string, index: number): string {
  const code = text.charCodeAt(index);
  const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code >= 0xd800 && code <= 0xdfff ? `${name} (a lone surrogate)` : name;
}

/**
 * A sentence for an error report when `text` holds a character XML cannot carry, or undefined
 * when it holds none. `where` names the place ("row 3, column \"LC50\"", "parameter title").
 */
export function nonXmlCharProblem(text: string, where: string): string | undefined {
  const index = firstNonXmlChar(text);
  if (index < 0) return undefined;
  return `${where} holds the character ${describeCharAt(text, index)} at position ${index + 1}, which XML 1.0 (and so RDF/XML) cannot represent`;
}
