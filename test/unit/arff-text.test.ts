import { test } from 'node:test';
import assert from 'node:assert/strict';
import { arffQuoted } from '../../src/dataset/arff-text.ts';

/** Weka's reading of one line: tokens split by commas and spaces, a quoted token with backslash escapes */
function tokens(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', "'": "'", '"': '"', '\\': '\\' };
  while (i < line.length) {
    if (line[i] === ' ' || line[i] === ',') {
      i++;
      continue;
    }
    if (line[i] !== "'") {
      const end = line.slice(i).search(/[ ,]/);
      out.push(end < 0 ? line.slice(i) : line.slice(i, i + end));
      i = end < 0 ? line.length : i + end;
      continue;
    }
    let text = '';
    for (i++; line[i] !== "'"; i++) {
      assert.ok(i < line.length, `unterminated quote in ${line}`);
      if (line[i] === '\\') text += escapes[line[++i]] ?? line[i];
      else text += line[i];
    }
    out.push(text);
    i++;
  }
  return out;
}

test('ARFF: a title with every kind of whitespace and quote is one token on one line, read back as written', () => {
  const titles = ['LC50\n(mg/L)', 'a\r\nb', 'tab\there', 'nbsp\u00a0x', 'line\u2028sep\u2029par', "it's", 'say "x"', 'back\\slash', "mixed '\n\\' end", ' spaced '];
  for (const title of titles) {
    const line = `@attribute ${arffQuoted(title)} numeric`;
    assert.equal(line.split(/\r|\n/).length, 1, JSON.stringify(title));
    assert.deepEqual(tokens(line), ['@attribute', title, 'numeric']);
  }
  // other control characters a reader takes as white space become spaces
  assert.deepEqual(tokens(arffQuoted('a\u000bb\u000cc')), ['a b c']);
});
