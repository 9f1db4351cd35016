package leak

import (
	"strings"
	"unicode/utf8"
)

// SecretValue is the value a secret-named key holds in text: s[Start:End]
// is to be replaced by Replacement. Quotes around a quoted value stay
// outside the span, so they survive.
type SecretValue struct {
	Start, End  int
	Replacement string
}

const (
	maxKeyBack   = 128  // how far back from a separator a key may start
	maxValueScan = 8192 // how far a bracketed or quoted value is followed
)

// SecretValues appends to dst the values of secret-named keys in s, in
// every shape a log line, an error or a dump writes them: KEY=value,
// key: value (a YAML line takes the rest of the line), "key": value with
// any JSON value (string, number, array, object), {'key': 'value'},
// key => value, escaped JSON inside text ({\"key\":\"v\"}), Go's %v of a
// map or struct (map[password:x]), NUL-separated environment dumps and
// "Authorization: Bearer x" (the scheme is kept). Values that are already
// the placeholder, and true, false, null, nil and None, are not secrets.
// Work is linear in len(s).
func SecretValues(s string, dst []SecretValue) []SecretValue {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ':' && c != '=' {
			continue
		}
		j := i + 1
		if j < len(s) && (c == '=' && s[j] == '>' || c == ':' && s[j] == '=') {
			j++
		} else if j < len(s) && s[j] == '=' || i > 0 && (s[i-1] == '=' || s[i-1] == '!' || s[i-1] == '<' || s[i-1] == '>') {
			continue // ==, !=, <=, >=: a comparison, not an assignment
		}
		key, quote, keyStart := keyBefore(s, i)
		inPath := keyStart > 0 && (s[keyStart-1] == '/' || s[keyStart-1] == '\\')
		if key == "" || inPath && (c != '=' || j != i+1) || !IsSecretKey(key) {
			continue
		}
		var v SecretValue
		ok := false
		if inPath {
			v, ok = segmentValue(s, j)
		} else {
			yaml := c == ':' && quote == "" && lineIndentOnly(s, keyStart)
			v, ok = valueAfter(s, j, quote == `"`, yaml)
		}
		if !ok {
			continue
		}
		dst = append(dst, v)
		i = v.End - 1
	}
	return dst
}

// keyBefore returns the key that ends before the separator at sep, the
// quote that closed it ("" when bare) and where the key starts.
func keyBefore(s string, sep int) (key, quote string, start int) {
	k := sep
	for n := 0; k > 0 && n < 8 && (s[k-1] == ' ' || s[k-1] == '\t'); n++ {
		k--
	}
	if k > 0 && (s[k-1] == '"' || s[k-1] == '\'' || s[k-1] == '`') {
		q := k - 1
		k = q
		for k > 0 && s[k-1] == '\\' {
			k--
		}
		quote = s[k : q+1]
	}
	end := k
	for k > 0 && end-k < maxKeyBack {
		if c := s[k-1]; c < 0x80 {
			if !isKeyChar(c) {
				break
			}
			k--
			continue
		}
		// A letter of any script belongs to the key; a byte that is not
		// valid UTF-8 does not, so "/0/\xe3PASS=…" still has a key.
		r, size := utf8.DecodeLastRuneInString(s[:k])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		k -= size
	}
	if k > 0 && (s[k-1] == '/' || s[k-1] == '\\') && s[sep] != '=' {
		return "", "", k // the end of a path (/srv/secrets.yaml: …), not a key
	}
	return s[k:end], quote, k
}

// segmentValue finds the value of a secret-named key inside a path segment
// (/var/lib/app/db_password=hunter2/memory.json): it ends where the segment
// does, so the rest of the path stays a path.
func segmentValue(s string, j int) (SecretValue, bool) {
	end := j
	for end < len(s) && s[end] != '/' && s[end] != '\\' && s[end] != ':' && !isBareStop(s[end]) {
		end++
	}
	if end == j || strings.HasPrefix(s[j:], Placeholder) {
		return SecretValue{}, false
	}
	return SecretValue{j, end, Placeholder}, true
}

func isKeyChar(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '.' || c >= 0x80
}

// lineIndentOnly reports whether only indentation (or a YAML list dash)
// precedes position i on its line.
func lineIndentOnly(s string, i int) bool {
	for i > 0 {
		switch s[i-1] {
		case '\n', '\r', 0:
			return true
		case ' ', '\t', '-':
			i--
		default:
			return false
		}
	}
	return true
}

// valueAfter finds the value that starts after spaces at j.
func valueAfter(s string, j int, jsonKey, yaml bool) (SecretValue, bool) {
	for n := 0; j < len(s) && n < 16 && (s[j] == ' ' || s[j] == '\t'); n++ {
		j++
	}
	if j >= len(s) || strings.HasPrefix(s[j:], Placeholder) {
		return SecretValue{}, false
	}
	if q := quoteAt(s, j); q != "" {
		start := j + len(q)
		end := closingQuote(s, start, q)
		if end == start || s[start:end] == Placeholder {
			return SecretValue{}, false
		}
		return SecretValue{start, end, Placeholder}, true
	}
	repl := Placeholder
	if jsonKey {
		repl = `"` + Placeholder + `"` // keeps JSON text JSON
	}
	if s[j] == '[' || s[j] == '{' {
		return SecretValue{j, balancedEnd(s, j), repl}, true
	}
	if first := bareEnd(s, j); isAuthScheme(s[j:first]) && first+1 < len(s) && s[first] == ' ' {
		// "Authorization: Bearer abc": keep the scheme, mask the credential.
		if strings.HasPrefix(s[first+1:], Placeholder) {
			return SecretValue{}, false
		}
		if e := valueEnd(s, first+1, yaml); e > first+1 {
			return SecretValue{first + 1, e, Placeholder}, true
		}
	}
	end := valueEnd(s, j, yaml)
	switch strings.ToLower(s[j:end]) {
	case "", "true", "false", "null", "nil", "none", "<nil>":
		return SecretValue{}, false
	}
	return SecretValue{j, end, repl}, true
}

// valueEnd returns the end of an unquoted value: the end of the line for
// a YAML value, else the first delimiter.
func valueEnd(s string, j int, yaml bool) int {
	if !yaml {
		return bareEnd(s, j)
	}
	end := j
	for end < len(s) && s[end] != '\n' && s[end] != '\r' && s[end] != 0 {
		end++
	}
	for end > j && (s[end-1] == ' ' || s[end-1] == '\t') {
		end--
	}
	return end
}

func bareEnd(s string, j int) int {
	end := j
	for end < len(s) && !isBareStop(s[end]) {
		end++
	}
	return end
}

func isBareStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', 0, '&', ';', ',', '"', '\'', '`', ')', ']', '}', '<', '>':
		return true
	}
	return false
}

func isAuthScheme(w string) bool {
	return inSet(w, []string{"bearer", "basic", "digest", "token", "negotiate", "bot", "apikey"})
}

// quoteAt returns the quote that opens a value at j: ", ', ` or a quote
// escaped once or more (\" inside JSON text inside JSON).
func quoteAt(s string, j int) string {
	k := j
	for k < len(s) && s[k] == '\\' {
		k++
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'' || s[k] == '`') {
		return s[j : k+1]
	}
	return ""
}

// closingQuote returns where the value that starts at start ends: before
// the quote q closing it, or at the end of the line when none does.
func closingQuote(s string, start int, q string) int {
	qc := q[len(q)-1]
	nb := len(q) - 1
	limit := min(len(s), start+maxValueScan)
	for p := start; p < limit; p++ {
		switch s[p] {
		case '\n', 0:
			return p
		case qc:
			r := 0
			for p-r-1 >= start && s[p-r-1] == '\\' {
				r++
			}
			if nb == 0 && r%2 == 0 {
				return p
			}
			if nb > 0 && r == nb {
				return p - r
			}
		}
	}
	return limit
}

// balancedEnd returns the end of the bracketed value that opens at j,
// quotes respected, or the end of the line when it does not close.
func balancedEnd(s string, j int) int {
	depth := 0
	var inQuote byte
	limit := min(len(s), j+maxValueScan)
	for p := j; p < limit; p++ {
		c := s[p]
		switch {
		case inQuote != 0:
			if c == '\\' {
				p++
			} else if c == inQuote {
				inQuote = 0
			}
		case c == '"' || c == '\'':
			inQuote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				return p + 1
			}
		case c == '\n' || c == 0:
			return p
		}
	}
	return limit
}
