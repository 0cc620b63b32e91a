/**
 * A string as one quoted ARFF token (Weka's reader): a backslash, a quote and the line breaks and
 * tabs that would end or split the line are escaped; other control characters, which a reader
 * takes as white space, become spaces. Titles and text values with any whitespace or quote stay
 * one token on one line.
 */
export function arffQuoted(s: string): string {
  const escaped = s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n')
    .replace(/\t/g, '\\t')
    .replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `'${escaped}'`;
}
