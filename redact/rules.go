package redact

import (
	"regexp"
	"strings"
)

// Placeholder replaces every secret the default rules find.
const Placeholder = "[REDACTED]"

// Rule is one redaction: every match of Pattern is replaced by Replacement,
// which may refer to submatches as in [regexp.Regexp.ReplaceAllString].
//
// Triggers make a rule cheap on text it cannot match: when the rule has
// triggers, its pattern runs only if the text contains at least one of them,
// compared case-insensitively. Give a rule triggers whenever its matches
// always contain some fixed text; a rule without triggers runs on every
// text.
type Rule struct {
	// Name identifies the rule in tests and logs, e.g. "dsn-password".
	Name string
	// Pattern finds what to remove.
	Pattern *regexp.Regexp
	// Replacement is what a match becomes; "$1" and "${name}" expand.
	Replacement string
	// Triggers are lower-case fixed strings, one of which every match
	// contains. A trigger that starts with "^" must start the text.
	Triggers []string
}

// NewRule compiles expr into a Rule, panicking on an invalid expression so
// that a bad rule fails at start-up, never at call time.
func NewRule(name, expr, replacement string, triggers ...string) Rule {
	lower := make([]string, len(triggers))
	for i, t := range triggers {
		lower[i] = strings.ToLower(t)
	}
	return Rule{Name: name, Pattern: regexp.MustCompile(expr), Replacement: replacement, Triggers: lower}
}

// secretKeys are names whose values are credentials wherever they appear as
// key=value, "key": "value" or key: value.
const secretKeys = `password|passwd|pwd|passphrase|secret|client_secret|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|token|access_token|refresh_token|id_token|auth[_-]?token|session[_-]?token|credentials?`

var secretTriggers = []string{"pass", "pwd", "secret", "key", "token", "credential"}

// DefaultRules returns the rules [String] applies, in order. The slice is a
// copy: append to it and pass it to [New] to extend the defaults.
func DefaultRules() []Rule { return append([]Rule(nil), defaultRules...) }

var defaultRules = []Rule{
	// Whole private keys first, before anything else can cut into them.
	NewRule("pem-private-key",
		`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`,
		"[REDACTED PRIVATE KEY]", "-----begin"),
	// A goroutine dump runs to the end of the text: everything after its
	// header is frames, and frames are internals.
	NewRule("goroutine-dump", `goroutine \d+ \[[^\]\n]*\]:[\s\S]*`, "[stack trace redacted]", "goroutine "),
	// debug.Stack-style frame pairs without a header: "pkg.fn(args)\n\t/abs/file.go:12 +0x1d".
	NewRule("stack-frame", `(?m)^[^\s()]+\([^\n]*\)\n\s+[^\n]*\.go:\d+[^\n]*$\n?`, "", ".go:"),
	NewRule("created-by", `(?m)^created by [^\n]*\n\s+[^\n]*\.go:\d+[^\n]*$\n?`, "", "created by"),
	// Lone source positions: "handler.go:42", "/src/app/db.go:17:3 +0x1d".
	NewRule("go-source-position", `[\w./\\-]*\.go:\d+(:\d+)?( \+0x[0-9a-f]+)?`, "[internal]", ".go:"),
	// URL and DSN user info: postgres://user:secret@host keeps user and host.
	NewRule("url-password", `\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^:@/\s"'<>]*):([^@/\s"'<>]+)@`, "${1}${2}:"+Placeholder+"@", "://"),
	// Authorization header values.
	NewRule("bearer-token", `(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/-]{12,}=*`, "${1} "+Placeholder, "bearer", "basic", "token"),
	// JSON Web Tokens: three base64url segments, the first a JSON header.
	NewRule("jwt", `\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}`, Placeholder, "eyj"),
	// Common API key shapes.
	NewRule("openai-style-key", `\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}`, Placeholder, "sk-", "pk-", "rk-"),
	NewRule("stripe-style-key", `\b(sk|pk|rk)_(live|test)_[A-Za-z0-9]{10,}`, Placeholder, "_live_", "_test_"),
	NewRule("aws-access-key-id", `\b(AKIA|ASIA)[0-9A-Z]{16}\b`, Placeholder, "akia", "asia"),
	NewRule("github-token", `\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})`, Placeholder, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
	NewRule("gitlab-token", `\bglpat-[A-Za-z0-9_-]{20,}`, Placeholder, "glpat-"),
	NewRule("slack-token", `\bxox[abposr]-[A-Za-z0-9-]{10,}`, Placeholder, "xox"),
	NewRule("google-api-key", `\bAIza[0-9A-Za-z_-]{35}`, Placeholder, "aiza"),
	// key=value pairs, in DSNs, query strings and logs. Quoted values keep
	// their quotes so JSON stays JSON.
	NewRule("quoted-secret-pair", `(?i)("(?:`+secretKeys+`)"\s*:\s*")(?:[^"\\]|\\.)*(")`, "${1}"+Placeholder+"${2}", secretTriggers...),
	NewRule("secret-pair", `(?i)\b(`+secretKeys+`)(\s*=\s*)(\[REDACTED\]|'[^']*'|"[^"]*"|[^\s,;&"'}\])]+)`, "${1}${2}"+Placeholder, secretTriggers...),
	NewRule("secret-colon-pair", `(?i)\b(password|passwd|pwd|passphrase|secret|client_secret|api[_-]?key|apikey)(:\s*)(\[REDACTED\]|"[^"\n]*"|'[^'\n]*'|[^\s,;&"'}\])]+)`, "${1}${2}"+Placeholder, "pass", "pwd", "secret", "key"),
	// Absolute file paths: they reveal layout, users and versions.
	NewRule("unix-path", `(^|[\s"'(=\[,])/(?:[\w.@+-]+/)+[\w.@+-]*`, "${1}[path]", "^/", " /", "\t/", "\n/", "\"/", "'/", "(/", "=/", "[/", ",/"),
	NewRule("windows-path", `\b[A-Za-z]:\\(?:[^\\\s"':*?<>|]+\\)*[^\\\s"':*?<>|]*`, "[path]", ":\\"),
}
