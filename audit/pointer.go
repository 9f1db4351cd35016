package audit

import (
	"strconv"
	"strings"
)

// Pointer returns a finding's path as a JSON pointer (RFC 6901) into the
// tool's definition: "inputSchema.properties.limit" becomes
// "/inputSchema/properties/limit", `properties["a.b"]` becomes
// "/properties/a.b". A path it cannot read is returned as one token.
func Pointer(path string) string {
	if path == "" {
		return ""
	}
	var tokens []string
	for rest := path; rest != ""; {
		switch {
		case strings.HasPrefix(rest, "."):
			rest = rest[1:]
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			if strings.HasPrefix(rest, `["`) {
				if q, err := strconv.QuotedPrefix(rest[1:]); err == nil {
					s, _ := strconv.Unquote(q)
					tokens = append(tokens, s)
					rest = strings.TrimPrefix(rest[1+len(q):], "]")
					continue
				}
			}
			if end < 0 {
				return "/" + escapePointer(path)
			}
			tokens = append(tokens, rest[1:end])
			rest = rest[end+1:]
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			tokens = append(tokens, rest[:end])
			rest = rest[end:]
		}
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
