import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeCharAt, firstNonXmlChar, isXmlText, nonXmlCharProblem } from '../../src/core/xml-chars.ts';

test('text XML 1.0 can carry: tab, line feed, carriage return, any letter, astral characters in pairs', () => {
  for (const text of ['', 'CCO', 'a\tb\nc\rd', 'µg/L – °C', '\u{1F600} and \u{10FFFF}', '\uFFFD', '\u0085\u007F\u00A0', '\uE000\uFFFD']) {
    assert.equal(firstNonXmlChar(text), -1, JSON.stringify(text));
    assert.equal(isXmlText(text), true);
    assert.equal(nonXmlCharProblem(text, 'here'), undefined);
  }
});

test('text XML 1.0 cannot carry: C0 controls, U+FFFE, U+FFFF, lone surrogates; the index of the first', () => {
  for (let code = 0; code < 0x20; code++) {
    const expected = code === 0x09 || code === 0x0a || code === 0x0d ? -1 : 2;
    assert.equal(firstNonXmlChar(`ab${String.fromCharCode(code)}c`), expected, `U+${code.toString(16)}`);
  }
  assert.equal(firstNonXmlChar('x\uFFFE'), 1);
  assert.equal(firstNonXmlChar('\uFFFF'), 0);
  assert.equal(firstNonXmlChar('ab\uD800'), 2); // a high surrogate at the end
  assert.equal(firstNonXmlChar('a\uD800b'), 1); // a high surrogate before a non-surrogate
  assert.equal(firstNonXmlChar('a\uDC00b'), 1); // a low surrogate alone
  assert.equal(firstNonXmlChar('\uDC00\uD800'), 0); // reversed pair: both lone
  assert.equal(firstNonXmlChar('\uD83D\uDE00\u0000'), 2); // a pair is fine, the NUL after it is not
  assert.equal(isXmlText('a\u0000'), false);
});

test('naming the character and the place', () => {
  assert.equal(describeCharAt('a\u0000', 1), 'U+0000');
  assert.equal(describeCharAt('\uFFFE', 0), 'U+FFFE');
  assert.equal(describeCharAt('\uD800', 0), 'U+D800 (a lone surrogate)');
  assert.equal(nonXmlCharProblem('ab\u0001', 'row 2, column "x"'), 'row 2, column "x" holds the character U+0001 at position 3, which XML 1.0 (and so RDF/XML) cannot represent');
});
