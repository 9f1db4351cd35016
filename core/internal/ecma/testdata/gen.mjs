// gen.mjs writes ecma.json, the table ecma_test.go holds the translator
// to: each pattern run by node's own ECMA-262 engine on each input.
//
//	node gen.mjs > ecma.json
//
// A pattern is run as JSON Schema 2020-12 (§6.4) asks and ajv does: with
// the u flag. One that is a SyntaxError with it but valid ECMA-262
// without it (Annex B: "\-", a lone "{" or "]") is run without it, and the
// table says so ("flags": ""); its inputs are within the BMP, where the
// two read alike. "refused" names what the translator refuses although
// ECMA-262 accepts it (RE2 cannot express it, or it means one thing with
// the u flag and another without); "error" is the engine's own for a
// pattern ECMA-262 refuses either way, which the translator refuses too.
const ws = ' \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
const cases = [
  // The two: \s is ECMA's set, "." stops at every line terminator.
  { p: '^\\S+$', in: ['bob', 'bob\u00a0admin', 'bob admin', 'bob\u3000x', 'bob\ufeffx', 'bob\u2028x', 'a\u180eb', 'é'] },
  { p: '^.{1,40}$', in: ['hello', 'hello\rX-Injected: 1', 'hello\nX', 'a\u2028b', 'a\u2029b', 'a\u0085b', '😀', ''] },
  { p: '\\s', in: [...ws].concat(['a', '\u0085', '\u180e', '\u200b', '\u00ad']) },
  { p: '[\\s]', in: ['\u00a0', '\u1680', '\u202f', 'x', '\u0085'] },
  { p: '[^\\s]', in: ['\u00a0', '\u3000', 'x', '\u0085'] },
  { p: '^[\\S]+$', in: ['abc', 'a\u00a0c', 'a\u2028c', 'a\tc'] },
  { p: '^[^\\S]+$', in: [' \u00a0\u3000', 'a', '\ufeff'] },
  { p: '^[\\sa-c]+$', in: ['a b\u00a0c', 'abd', '\u205f'] },
  { p: '^[\\Sx]$', in: ['x', ' ', '\u00a0', 'y'] },
  { p: '^.$', in: ['a', '\n', '\r', '\u2028', '\u2029', '\u0085', '😀', '\t', '\v'] },
  { p: 'a.c', in: ['abc', 'a\nc', 'a\rc', 'a\u2028c', 'a😀c'] },
  // Anchors without the m flag: the whole text only; patterns are not anchored.
  { p: '^ab$', in: ['ab', 'ab\n', '\nab', 'xab', 'a\nab\nb'] },
  { p: '^a', in: ['ab', 'b\na', 'ba'] },
  { p: 'b$', in: ['ab', 'b\na', 'ab\n'] },
  { p: 'ab', in: ['xxabyy', 'a b'] },
  { p: '^a|b$', in: ['ax', 'xb', 'xbx', 'b; DROP'] },
  // \d \w \b: ASCII, as ECMA without the i flag.
  { p: '^\\d+$', in: ['123', '١٢٣', '１２', '12a'] },
  { p: '^\\w+$', in: ['abc_9', 'é', 'ǅ', 'a-b', 'K'] },
  { p: '\\bfoo\\b', in: ['a foo b', 'afoo', 'éfooé', 'foo_'] },
  { p: '\\Bo\\B', in: ['foo', 'o', 'éoé'] },
  { p: '^\\D\\W$', in: ['a-', '1-', 'é ', 'aa'] },
  { p: '^[\\d\\w-]+$', in: ['a-1', 'a.1'] },
  // Escapes.
  { p: '^\\t\\n\\v\\f\\r$', in: ['\t\n\v\f\r', 'tnvfr'] },
  { p: '^\\x41\\u0042\\u{43}$', in: ['ABC', 'ABc'] },
  { p: '^\\u{1F600}$', in: ['😀', '\u{1F601}'] },
  { p: '^\\uD83D\\uDE00$', in: ['😀', '\u{1F601}'] },
  { p: '^[\\uD83D\\uDE00-\\uD83D\\uDE02]$', in: ['😀', '😂', '\u{1F603}'] },
  { p: '^\\cJ\\ca$', in: ['\n\u0001', 'cJca'] },
  { p: '^\\0$', in: ['\u0000', '0'] },
  { p: '^\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\$', in: ['/.*+?()[]{}|^$\\', 'x'] },
  { p: '^a\\/b$', in: ['a/b', 'a\\/b'] },
  { p: '^[\\b]$', in: ['\b', 'b'] },
  { p: '^[\\-a]+$', in: ['-a-', 'b'] },
  { p: '^[\\]\\\\\\[]+$', in: [']\\[', 'a'] },
  { p: '^[\\x20-\\x7e]+$', in: ['hello world~', 'é', '\t'] },
  { p: '^[\\u0000-\\u001f]$', in: ['\u0000', '\u001f', ' '] },
  { p: '^[^\\x00-\\x7f]+$', in: ['é日😀', 'aé'] },
  // Character classes.
  { p: '^[^]$', in: ['a', '\n', '\u2028', '😀', ''] },
  { p: '[]', in: ['a', '', '[]'] },
  { p: '^[^]*$', in: ['any\nthing\r\u2028', ''] },
  { p: '^[a-c-e]+$', in: ['a-e', 'd', 'bc'] },
  { p: '^[-a]$', in: ['-', 'a', 'b'] },
  { p: '^[a-]$', in: ['-', 'a', 'b'] },
  { p: '^[[a]+$', in: ['[a[', 'b'] },
  { p: '^[.]$', in: ['.', 'a'] },
  { p: '^[$^|*+?(){}]+$', in: ['$^|*+?(){}', 'a'] },
  { p: '^[😀-😂]$', in: ['😁', '😃'] },
  { p: '^[^a]$', in: ['😀', 'a', '\n'] },
  // Quantifiers and groups.
  { p: '^(?:ab){2,3}$', in: ['abab', 'ab', 'abababab'] },
  { p: '^a{2}b{1,}c{0,1}$', in: ['aab', 'aabbbc', 'ab'] },
  { p: '^a+?b*?c??$', in: ['ab', 'aaac', 'b'] },
  { p: '^(a|bc)+$', in: ['abca', 'abd'] },
  { p: '^(?<year>\\d{4})-(?<m>\\d{2})$', in: ['2024-01', '24-01'] },
  { p: '^(a+)+$', in: ['aaaa', 'aaab'] },
  // Unicode properties, with the u flag.
  { p: '^\\p{L}+$', in: ['héllo', '日本', 'a1'] },
  { p: '^\\p{Lu}\\p{Ll}+$', in: ['Hello', 'hello'] },
  { p: '^\\P{L}+$', in: ['123', 'a1'] },
  { p: '^[\\p{L}\\p{Nd}_]+$', in: ['abc_١', 'a-b'] },
  { p: '^\\p{Script=Greek}+$', in: ['αβγ', 'abc'] },
  { p: '^\\p{sc=Cyrillic}$', in: ['ж', 'z'] },
  { p: '^\\p{gc=Nd}$', in: ['٣', 'x'] },
  { p: '^\\p{General_Category=Lu}$', in: ['Q', 'q'] },
  { p: '^\\p{ASCII}+$', in: ['abc~', 'é'] },
  { p: '^\\p{Any}$', in: ['\n', '😀'] },
  { p: '^[^\\P{Lu}]$', in: ['A', 'a'] },
  // Annex B, read without the u flag: identity escapes and lone braces.
  { p: '^a\\-b$', in: ['a-b', 'ab'] },
  { p: '^\\_\\@\\#\\%\\&\\,\\:\\;\\<\\=\\>\\!\\~\\"\\\'$', in: ['_@#%&,:;<=>!~"\'', 'x'] },
  { p: '^[\\w-.]+$', in: ['a-b.c', 'a b'] },
  { p: '^[\\w-]+$', in: ['a-b', 'a.b'] },
  { p: '^a{$', in: ['a{', 'a'] },
  { p: '^a{,3}$', in: ['a{,3}', 'aaa'] },
  { p: '^a}]$', in: ['a}]', 'a'] },
  { p: '^x{1,2$', in: ['x{1,2', 'xx'] },
  // What RE2 cannot express: refused.
  { p: '^(?!admin$).+$', in: ['admin', 'bob'], refused: 'lookahead' },
  { p: '^(?=.*\\d).+$', in: ['a1', 'ab'], refused: 'lookahead' },
  { p: '(?<=a)b', in: ['ab', 'cb'], refused: 'lookbehind' },
  { p: '(?<!a)b', in: ['ab', 'cb'], refused: 'lookbehind' },
  { p: '^(a)\\1$', in: ['aa', 'ab'], refused: 'backreference' },
  { p: '^(?<q>[\'"]).*\\k<q>$', in: ['"a"', '"a\''], refused: 'backreference' },
  // Not ECMA-262 with the u flag, nor without (or meaning another thing
  // in Go): refused.
  { p: '(?i)abc', in: [] },
  { p: 'a**', in: [] },
  { p: '*a', in: [] },
  { p: '^*', in: [] },
  { p: '\\b+', in: [] },
  { p: 'a{2}{3}', in: [] },
  { p: '[z-a]', in: [] },
  { p: '(ab', in: [] },
  { p: 'ab)', in: [] },
  { p: '[ab', in: [] },
  { p: 'ab\\', in: [] },
  // Valid without the u flag only, and meaning another thing there
  // ("p{Greek}", "pL", "u" 110000 times): refused.
  { p: '\\p{Greek}', in: ['α', 'p{Greek}'], refused: 'u flag' },
  { p: '\\pL', in: ['a', 'pL'], refused: 'u flag' },
  { p: '\\u{110000}', in: ['u'], refused: 'u flag' },
  // Valid without the u flag but meaning another thing there (\a is "a",
  // \A "A", \z "z"; Go reads them as a bell and anchors): refused, with
  // the other escapes that name a letter ECMA does not define.
  { p: '\\Aabc\\z', in: ['abc', 'Aabcz'], refused: 'escape' },
  { p: '\\a', in: ['a', '\u0007'], refused: 'escape' },
  { p: '\\e\\h\\Q', in: ['ehQ'], refused: 'escape' },
];

const out = [];
for (const c of cases) {
  const row = { pattern: c.p };
  let re = null;
  for (const flags of ['u', '']) {
    try { re = new RegExp(c.p, flags); row.flags = flags; break; } catch (e) { row.error = String(e.message); }
  }
  if (re) delete row.error;
  if (c.refused) row.refused = c.refused;
  if (re) row.results = c.in.map((s) => ({ input: s, match: re.test(s) }));
  out.push(row);
}
// The two sets the translator spells out, read from the engine itself.
const set = (re) => {
  const ranges = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (re.test(String.fromCodePoint(cp))) {
      const last = ranges[ranges.length - 1];
      if (last && last[1] === cp - 1) last[1] = cp; else ranges.push([cp, cp]);
    }
  }
  return ranges;
};
// Every character outside printable ASCII is written as \uXXXX, so that
// the table shows what it holds.
const ascii = (v) => JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
const lines = (rows) => rows.map((r) => '  ' + ascii(r)).join(',\n');
process.stdout.write('{\n "whitespace": ' + JSON.stringify(set(/^\s$/u)) +
  ',\n "notDot": ' + JSON.stringify(set(/^(?!.)[^]$/u)) +
  ',\n "cases": [\n' + lines(out) + '\n ]\n}\n');
