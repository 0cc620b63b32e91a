/** Characters XML 1.0 cannot carry at all (they are dropped). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text as XML character data or an attribute value: markup escaped, characters XML cannot carry dropped (the writers of DocBook, QMRF and PMML documents). */
export function escapeXml(s: string): string {
  return s.replace(NOT_XML, '').replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}
