package redact

import (
	"path"
	"strings"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// KeepPathsUnder returns a new Redactor whose path rules (those marked
// [Rule.KeepSent]) leave alone every path under one of roots: the
// directories a file server lets the agent work in, which the agent may
// see. A relative path the agent sent ("nope.txt") that the server
// resolved under a root ("stat /srv/files/nope.txt: no such file") stays
// readable, and so does a file URL of such a path; a path elsewhere
// (/etc/passwd, /srv/files-old/x, /srv/files/../x) is still redacted.
// Secrets inside a kept path are still removed: the secret rules run
// first.
//
// A root is an absolute path (/srv/files, C:\data); the test is lexical,
// on the cleaned path, so a symbolic link under a root that points
// elsewhere is not followed. Give it on the chain's one redactor so that
// every layer agrees:
//
//	middleware.WithRedactor(redact.Default().KeepPathsUnder("/srv/files"))
//	gosdk.WithRedactor(redact.Default().KeepPathsUnder("/srv/files"))
//
// It panics on a root that is empty, relative or the file system's root
// (to show every path, drop the rules: Without("paths")).
func (r *Redactor) KeepPathsUnder(roots ...string) *Redactor {
	if r == nil {
		r = &Redactor{}
	}
	out := &Redactor{rules: r.rules, call: r.call, roots: append([]string(nil), r.roots...)}
	for _, root := range roots {
		clean, ok := cleanPath(root)
		if !ok {
			panic("redact: KeepPathsUnder(" + quote(root) + "): a root must be an absolute path, such as /srv/files or C:\\data")
		}
		if clean == "/" || len(clean) == 3 && clean[1] == ':' {
			panic("redact: KeepPathsUnder(" + quote(root) + "): the file system's root keeps every path; use Without(\"paths\") for that")
		}
		out.roots = append(out.roots, clean)
	}
	return out
}

func quote(s string) string { return `"` + s + `"` }

// cleanPath returns p lexically cleaned with "/" separators, and whether
// p is absolute. A Windows path is lower-cased, as Windows compares names.
func cleanPath(p string) (string, bool) {
	if len(p) >= 3 && isDriveLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/') {
		return strings.ToLower(p[:1] + ":" + path.Clean("/"+strings.ReplaceAll(p[2:], `\`, "/"))), true
	}
	if strings.HasPrefix(p, "/") {
		return path.Clean(p), true
	}
	return "", false
}

func isDriveLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// underRoot reports whether kept, the path a path rule matched (or a
// file URL), lies under one of r's roots.
func (r *Redactor) underRoot(kept string) bool {
	if p, ok := leak.FileURLPath(kept); ok {
		kept = p
	}
	p, ok := cleanPath(kept)
	if !ok {
		return false
	}
	for _, root := range r.roots {
		if p == root || strings.HasPrefix(p, root) && p[len(root)] == '/' {
			return true
		}
	}
	return false
}
