// Package ecma reads a JSON Schema "pattern", an ECMA-262 regular
// expression, as the Go regexp (RE2) program of the same meaning, so that
// a pattern checked in Go accepts what the schema's author meant, not
// what Go's own syntax would make of the same text. It is the one
// translator every consumer of a declared pattern uses: core/declared's
// check (both fronts and the proxy) and core/validate's named patterns.
//
// # The reading
//
// A pattern is read as JSON Schema 2020-12 (§6.4) asks and ajv does: as
// ECMA-262 with the u flag and no other (no i, m, s or y), and not
// anchored (it matches when it matches anywhere in the string). So it
// counts code points, as Go does, and:
//
//   - \s and \S are ECMA's white space and line terminators: Go's \s
//     lacks U+000B, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
//     U+202F, U+205F, U+3000 and U+FEFF, so "^\S+$" would accept
//     "bob\u00a0admin"; in and out of a character class;
//   - "." is any character but \n, \r, U+2028 and U+2029 (Go's stops at
//     \n only, so "^.{1,40}$" would accept "hello\rX-Injected: 1");
//   - ^ and $ are the start and end of the whole string (no m flag); \d
//     \w \b \B are ASCII, as Go's are;
//   - \xHH, \uXXXX (a surrogate pair is one character), \u{...}, \cX, \0,
//     \t \n \v \f \r, [\b] (backspace), [^] (any character), []
//     (nothing), \/ and the other escaped syntax characters;
//   - \p{...} and \P{...} with a General_Category short name (L, Lu, Nd;
//     also gc=, General_Category=), a script (Script=Greek, sc=), ASCII
//     and Any, on Go's Unicode tables (a character assigned after Go's
//     Unicode version may differ);
//   - named groups (?<name>...) as plain groups.
//
// Where a pattern is an error with the u flag but valid ECMA-262 without
// it, and Annex B gives it one plain meaning, that meaning is taken: an
// identity escape of a punctuation character (\-, \_, \@), a "{" or "}"
// or "]" that starts no quantifier or class, a "-" beside a class escape
// ([\w-.]). An escaped letter ECMA does not define (\a, \A, \z, \e) is
// refused: Annex B reads it as the letter, Go as an anchor or a control
// character, and a pattern written for another engine meant neither.
//
// # What is refused
//
// What RE2 cannot express: lookahead, lookbehind, backreferences (\1,
// \k<name>). And what is not ECMA-262 with the u flag, or means another
// thing without it: inline flags such as (?i), \pL, \p{Greek} (a script
// needs Script=), an undefined escape, a quantifier with nothing to
// repeat, a range out of order. [Translate] says which, and where; the
// caller decides what a refused pattern does (core/declared turns that
// keyword off, with a warning; core/validate refuses to register it).
//
// Inputs are Go strings: a lone surrogate that an ECMA string could hold
// reaches Go as U+FFFD, which no surrogate escape matches.
package ecma
