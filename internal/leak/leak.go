package leak

import (
	"regexp"
	"strings"
)

// Placeholder replaces every secret the rules find.
const Placeholder = "[REDACTED]"

// Spec is one kind of leak: how to find it and, when Replacement is not
// empty, what the redactor puts in its place.
type Spec struct {
	// Name is "category/kind": stack/…, secrets/…, paths/…. Redaction rules
	// are dropped by name or by category.
	Name string
	// What describes a match in a report, without repeating it.
	What string
	// Expr is the regular expression. A submatch named "kept" is the part
	// compared with what the agent sent (see KeepSent).
	Expr string
	// Replacement is what a match becomes ("$1" expands).
	Replacement string
	// DetectOnly marks kinds that are found but never rewritten.
	DetectOnly bool
	// Triggers are lower-case fixed strings one of which every match
	// contains; "^x" means the text starts with x.
	Triggers []string
	// KeepSent keeps a match the call's own arguments contain verbatim.
	KeepSent bool
	// Output marks what a tool's successful output holds by design (a
	// file server's paths and file URLs, a linter's source positions):
	// redaction of successes keeps it. Secrets and stack traces are never
	// Output.
	Output bool
	// Pre, when set, runs after the triggers matched: a cheap scan that
	// returns false when the expression cannot match (a URL's "://" holds
	// the trigger ":/" but never a path).
	Pre func(s string) bool
	// Spans, when set, finds the matches in code instead of an expression
	// (Expr is empty): it appends to dst the spans of s to replace, in
	// order. It must not allocate when it finds none.
	Spans func(s string, dst []SecretValue) []SecretValue
	// Accept, when set, vets each match of Expr (the whole match): false
	// means it is no leak, and neither the detector nor the redactor
	// counts it.
	Accept func(match string) bool
	// Sent marks the kind of the call's own secrets: a value its arguments
	// carried under a secret-named key, found verbatim ([Sent.SecretIn],
	// [Sent.RedactSecrets]). It has no expression, and finds nothing
	// outside a call.
	Sent bool
}

// SentSecretsName names the Spec of the call's own secrets (Spec.Sent).
const SentSecretsName = "secrets/sent-secret-argument"

// Path and stack building blocks. L is a path segment character: letters
// and digits of any script, not just ASCII, so /home/ålice leaks nothing.
// "=" belongs to a segment (/data/year=2024/part-0.parquet is one path,
// and /app/db_password=x/y.json never ends at the "="), and so does a
// bracketed or parenthesised run (file(1).txt, [id]/page.tsx, and the
// placeholder the pairs rule leaves in a path), and so does a ':' or ','
// glued to more of the segment (sha256:ab12/, a,b.txt, x.txt:12): a path
// never ends inside a segment, so no tail of one is left behind. A ':' or
// ',' before a space or a '/' ends the path (PATH=/a/bin:/b/bin), and so
// does a full stop that ends the last segment: "cannot open /a/dir." names
// /a/dir, and the stop is the sentence's (segEnd).
const (
	segRun    = `[\p{L}\p{N}_.@+~%$#!=-]`
	segGroup  = `\[` + segRun + `*\]|\(` + segRun + `*\)`
	segChar   = `(?:` + segRun + `|` + segGroup + `|&|[:,]` + segRun + `)`
	segEnd    = `(?:[\p{L}\p{N}_@+~%$#!=-]|` + segGroup + `|&|[:,][\p{L}\p{N}_@+~%$#!=-])`
	midChar   = `(?:[\p{L}\p{N}_.@+~%$#!()&,=-]|` + segGroup + `|:` + segRun + `)`
	pathStart = "(^|[\\s\"'(=\\[,:;{}<>|`*\\x00])"
	// A segment may hold up to three spaces ("My Documents") when another
	// separator follows, so no tail of a spaced path is left behind.
	midSeg  = midChar + `+(?: +` + midChar + `+){0,3}`
	winChar = "[^\\\\/\\s\"'<>|:*?`,;()]"
	winEnd  = "[^\\\\/\\s\"'<>|:*?`,;().]" // a full stop that ends the path is the sentence's
	winMid  = "[^\\\\/\\s\"'<>|:*?`]"
	winSeg  = winMid + `+(?: +` + winMid + `+){0,3}`
	winSep  = `(?:\\+|/)`
)

// Specs lists every kind, in the order the redactor applies them: whole
// private keys first, then stacks, URL credentials and key shapes, then
// paths (after pairs, so PWD=/home/app goes as a secret value).
var Specs = []Spec{
	// First: a secret the call sent is known exactly, and no rule after
	// it may cut one in two.
	{Name: SentSecretsName, What: "a value the call sent under a secret-named key", Replacement: Placeholder, Sent: true},
	{Name: "secrets/pem-private-key", What: "a PEM private key",
		Expr:        `-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`,
		Replacement: "[REDACTED PRIVATE KEY]", Triggers: []string{"-----begin"}},
	{Name: "stack/goroutine-dump", What: "a goroutine dump",
		Expr: `goroutine \d+ \[[^\]\n]*\]:[\s\S]*`, Replacement: "[stack trace redacted]", Triggers: []string{"goroutine "}},
	{Name: "stack/frame", What: "a stack frame",
		Expr: `(?m)^[^\s()]+\([^\n]*\)\n\s+[^\n]*\.go:\d+[^\n]*$\n?`, Triggers: []string{".go:"}},
	{Name: "stack/created-by", What: "a stack frame",
		Expr: `(?m)^created by [^\n]*\n\s+[^\n]*\.go:\d+[^\n]*$\n?`, Triggers: []string{"created by"}},
	{Name: "stack/source-position", What: "a Go source position (file.go:NN)",
		Expr: `[\p{L}\p{N}_./\\-]*\.go:\d+(?::\d+)?(?: \+0x[0-9a-f]+)?`, Replacement: "[internal]", Triggers: []string{".go:"}, Output: true},
	{Name: "stack/rust-backtrace", What: "a Rust backtrace",
		Expr: `stack backtrace:(?:\n[ \t]+(?:\d+: [^\n]*|at [^\n]*))*`, Replacement: stackMarker, Triggers: []string{"stack backtrace:"}},
	{Name: "stack/rust-position", What: "a Rust source position (file.rs:NN:NN)",
		Expr: `[\p{L}\p{N}_./\\-]*\.rs:\d+:\d+`, Replacement: "[internal]", Triggers: []string{".rs:"}, Output: true},
	// Other runtimes' traces: each run of frames becomes one marker, and
	// the message around it (the exception and its text) stays.
	{Name: "stack/java", What: "a Java stack trace",
		Expr:        javaFrame + `(?:\s+(?:` + javaFrame + `|\.\.\. \d+ (?:more|common frames omitted)|(?:Caused by|Suppressed): [^\n]*))*`,
		Replacement: stackMarker, Triggers: []string{".java", ".kt", ".scala", ".groovy", ".clj", "native method", "unknown source"}},
	{Name: "stack/dotnet", What: "a .NET stack trace",
		Expr:        `(?m)` + dotnetFrame + `(?:\n(?:` + dotnetFrame + `|[ \t]*--- End of [^\n]*?---))*`,
		Replacement: stackMarker, Triggers: []string{":line ", " at ", "\tat "}},
	{Name: "stack/python", What: "a Python traceback",
		Expr:        `Traceback \(most recent call last\):(?:\s*` + pythonFrame + `)*|` + pythonFrame + `(?:\s*` + pythonFrame + `)*`,
		Replacement: stackMarker, Triggers: []string{"traceback (most recent call last):", `file "`}},
	{Name: "stack/javascript", What: "a JavaScript stack trace",
		Expr:        jsFrame + `(?:\n[ \t]*(?:` + jsFrame + `|at (?:async )?[^\s()]+ \((?:index \d+|native)\)))*`,
		Replacement: stackMarker, Triggers: []string{"at "}, Pre: hasLineAndColumn},
	{Name: "secrets/url-password", What: "a password in a URL or DSN",
		Expr:        `\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^:@/\s"'<>]*):([^\s"'<>]*)@`,
		Replacement: "${1}${2}:" + Placeholder + "@", Triggers: []string{"://"}},
	{Name: "secrets/mysql-dsn", What: "a password in a Go MySQL DSN",
		Expr:        `([\p{L}\p{N}_.+-]*):([^\s"']*?)@(tcp6?|udp|unix|unixgram)\(`,
		Replacement: "${1}:" + Placeholder + "@${3}(", Triggers: []string{"@tcp(", "@tcp6(", "@udp(", "@unix"}},
	{Name: "secrets/bearer-token", What: "an Authorization credential",
		Expr:        `(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/-]{12,}=*`,
		Replacement: "${1} " + Placeholder, Triggers: []string{"bearer", "basic", "token"}},
	{Name: "secrets/jwt", What: "a JSON Web Token",
		Expr: `\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}`, Replacement: Placeholder, Triggers: []string{"eyj"}},
	{Name: "secrets/openai-style-key", What: "an API key (sk-…)",
		Expr: `\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}`, Replacement: Placeholder, Triggers: []string{"sk-", "pk-", "rk-"}},
	{Name: "secrets/stripe-style-key", What: "an API key (sk_live_…)",
		Expr:        `\b(?:(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})`,
		Replacement: Placeholder, Triggers: []string{"_live_", "_test_", "whsec_"}},
	{Name: "secrets/aws-access-key-id", What: "an AWS access key ID",
		Expr: `\b(AKIA|ASIA)[0-9A-Z]{16}\b`, Replacement: Placeholder, Triggers: []string{"akia", "asia"}},
	{Name: "secrets/github-token", What: "a GitHub token",
		Expr:        `\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})`,
		Replacement: Placeholder, Triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{Name: "secrets/gitlab-token", What: "a GitLab token",
		Expr:        `\bgl(?:pat|ptt|rt|dt|cbt|imt|ft|soat|oas|agent)-[A-Za-z0-9_-]{20,}`,
		Replacement: Placeholder, Triggers: []string{"glpat-", "glptt-", "glrt-", "gldt-", "glcbt-", "glimt-", "glft-", "glsoat-", "gloas-", "glagent-"}},
	{Name: "secrets/slack-token", What: "a Slack token",
		Expr: `\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}`, Replacement: Placeholder, Triggers: []string{"xox", "xapp-"}},
	{Name: "secrets/slack-webhook", What: "a Slack webhook URL",
		Expr: `https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]+`, Replacement: Placeholder, Triggers: []string{"hooks.slack.com"}},
	{Name: "secrets/google-api-key", What: "a Google API key",
		Expr: `\bAIza[0-9A-Za-z_-]{30,}`, Replacement: Placeholder, Triggers: []string{"aiza"}},
	{Name: "secrets/npm-token", What: "an npm token",
		Expr: `\bnpm_[A-Za-z0-9]{36}\b`, Replacement: Placeholder, Triggers: []string{"npm_"}},
	{Name: "secrets/huggingface-token", What: "a Hugging Face token",
		Expr: `\bhf_[A-Za-z0-9]{30,}`, Replacement: Placeholder, Triggers: []string{"hf_"}},
	{Name: "secrets/sendgrid-key", What: "a SendGrid key",
		Expr: `\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`, Replacement: Placeholder, Triggers: []string{"sg."}},
	{Name: "secrets/pypi-token", What: "a PyPI token",
		Expr: `\bpypi-[A-Za-z0-9_-]{50,}`, Replacement: Placeholder, Triggers: []string{"pypi-"}},
	{Name: "secrets/google-oauth-token", What: "a Google OAuth access token",
		Expr: `\bya29\.[A-Za-z0-9_-]{20,}`, Replacement: Placeholder, Triggers: []string{"ya29."}},
	{Name: "secrets/digitalocean-token", What: "a DigitalOcean token",
		Expr: `\bdo[por]_v1_[a-f0-9]{64}\b`, Replacement: Placeholder, Triggers: []string{"dop_v1_", "doo_v1_", "dor_v1_"}},
	{Name: "secrets/shopify-token", What: "a Shopify token",
		Expr: `\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b`, Replacement: Placeholder, Triggers: []string{"shpat_", "shpss_", "shpca_", "shppa_"}},
	// After every prefixed kind, so a known token is named by its vendor.
	{Name: "secrets/high-entropy-token", What: "a token (a long random run)",
		Replacement: Placeholder, Spans: HighEntropyTokens, Pre: mayHoldToken},
	// secrets/pairs is code, not an expression: see SecretValues. It also
	// masks the signature, credential and token parameters of signed URLs
	// (X-Amz-Signature, X-Goog-Credential, sig, Signature, Key-Pair-Id),
	// decided by the parameter's name.
	{Name: PairsName, What: "the value of a secret-named key", Triggers: PairTriggers, Spans: SecretValues},
	{Name: "paths/file-url", What: "a file URL",
		// Not ending in the punctuation of the sentence around it.
		Expr: `(?i)\b(?P<kept>file://[^\s"'<>` + "`" + `]*[^\s"'<>` + "`" + `:,;.])`, Replacement: "[path]", Triggers: []string{"file://"}, KeepSent: true, Output: true},
	{Name: "paths/unc", What: "a Windows network path",
		// A share after the server: "\\x7f\" is how a quoted "\x7f" looks
		// in JSON text, and names nothing. Nor does a backslash that starts
		// an escape (see notEscapedUNC).
		Expr:        `(^|[^\\\p{L}\p{N}])(?P<kept>\\{2,}[\p{L}\p{N}_.$-]+(?:\\+` + winSeg + `)*\\+` + winChar + `*` + winEnd + `)`,
		Replacement: "${1}[path]", Triggers: []string{`\\`}, KeepSent: true, Output: true, Accept: notEscapedUNC},
	{Name: "paths/windows", What: "a Windows file path",
		// At least one character after the drive's separator: a bare "A:\"
		// names nothing, and in JSON text it is how `"A:"` looks escaped.
		Expr:        `\b(?P<kept>[A-Za-z]:` + winSep + `(?:` + winSeg + winSep + `)*` + winChar + `*` + winEnd + `)`,
		Replacement: "[path]", Triggers: []string{`:\`, ":/"}, KeepSent: true, Output: true, Pre: mayBeDrivePath},
	{Name: "paths/unix", What: "an absolute file path",
		Expr:        pathStart + `(?P<kept>/(?:` + midSeg + `/+)+(?:` + segChar + `*` + segEnd + `)?)`,
		Replacement: "${1}[path]", Triggers: unixPathTriggers, KeepSent: true, Output: true, Pre: mayBeUnixPath, Accept: notSchemaPointer},
	// Detected, never rewritten: the redactor keeps "panic: boom" readable,
	// but an envelope that carries one has leaked a panic value.
	{Name: "stack/goroutine-header", DetectOnly: true, What: "a goroutine dump", Expr: `goroutine \d+ \[`, Triggers: []string{"goroutine "}},
	{Name: "stack/go-panic", DetectOnly: true, What: "a Go panic", Expr: `\bpanic: |runtime\.gopanic|runtime/debug\.Stack|\[recovered\]`,
		Triggers: []string{"panic", "recovered", "runtime/debug"}},
	{Name: "stack/runtime-error", DetectOnly: true, What: "a runtime error", Expr: `runtime error: `, Triggers: []string{"runtime error"}},
	// The Go runtime's own panic messages, and the wrappers SDK recovery
	// layers put around a panic value (mcp-go's WithRecovery: "panic
	// recovered in x tool handler: …"): the value of a panic on the wire.
	{Name: "stack/panic-value", DetectOnly: true, What: "a panic value",
		Expr:     `(?i)\bpanic recovered\b|\brecovered from panic\b|assignment to entry in nil map|invalid memory address or nil pointer dereference|index out of range \[-?\d+\]|slice bounds out of range|integer divide by zero`,
		Triggers: []string{"panic", "nil map", "nil pointer", "out of range", "divide by zero"}},
}

// stackMarker replaces a run of another runtime's stack frames.
const stackMarker = "[stack trace redacted]"

// Frames of other runtimes, as each prints them.
const (
	// at com.shop.Bar.baz(Bar.java:42), at java.base/java.lang.Thread.run(Thread.java:833),
	// (Native Method), (Unknown Source); Kotlin, Scala, Groovy and Clojure too.
	javaFrame = `\bat (?:[\w$.-]+/{1,2})?[\w$]+(?:\.[\w$<>-]+)+\((?:[^()\n]*\.(?:java|kts?|scala|groovy|clj)(?::\d+)?|Native Method|Unknown Source)\)`
	// at Ns.Type.Method(Int32 id) in C:\src\x.cs:line 42; without a file
	// only when indented on its own line, as .NET prints it.
	dotnetName  = "[\\w`+<>$\\[\\],|-]+(?:\\.[\\w`+<>$\\[\\],|-]+)+\\([^()\\n]*\\)"
	dotnetFrame = `(?:^[ \t]+at ` + dotnetName + `(?: in [^\n]*?:line \d+)?|\bat ` + dotnetName + ` in [^\n]*?:line \d+)`
	// File "/app/x.py", line 3, in f, and the indented source lines after it.
	pythonFrame = `File "[^"\n]+", line \d+(?:, in [^\n]*)?(?:\n {4,}[^\n]*)*`
	// at fn (/app/x.js:1:2), at async fn (...), at new Foo (file:///x.mjs:3:4),
	// at /app/x.js:1:2: a location with a directory or a script's extension.
	jsLocation = `(?:[^\s()]*[/\\][^\s()]*|[^\s()]+\.[cm]?[jt]sx?|<anonymous>):\d+:\d+`
	jsFrame    = `\bat (?:async )?(?:new )?(?:[^\s()]+ (?:\[as [^\]\n]+\] )?\(` + jsLocation + `\)|` + jsLocation + `)`
)

// hasLineAndColumn reports whether s holds ":N:N", as every JavaScript
// frame does.
func hasLineAndColumn(s string) bool {
	for i := strings.IndexByte(s, ':'); i >= 0 && i+3 < len(s); {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j > i+1 && j+1 < len(s) && s[j] == ':' && isDigit(s[j+1]) {
			return true
		}
		next := strings.IndexByte(s[i+1:], ':')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// notEscapedUNC reports whether a paths/unc match is a network path rather
// than quoted text. A backslash followed by an escape (see escapeAt) starts
// that escape, so it is neither one of the pair that opens the path nor the
// separator before the share: in JSON text "\\x7f\u002600" is a quoted
// "\x7f&00", not the share u002600 on server x7f. Escapes further along
// belong to a path already named.
func notEscapedUNC(m string) bool {
	i := strings.IndexByte(m, '\\')
	if i < 0 {
		return false
	}
	open := backslashes(m, i)
	server := i + open
	if escapeAt(m, server) {
		open--
	}
	end := server + strings.IndexByte(m[server:], '\\')
	if end < server {
		return false
	}
	sep := backslashes(m, end)
	if escapeAt(m, end+sep) {
		sep--
	}
	return open >= 2 && sep >= 1
}

// backslashes counts the backslashes of s from i on.
func backslashes(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '\\' {
		n++
	}
	return n
}

// escapeAt reports whether s[i:] is what a quoter writes after a backslash
// for a character it does not print as is: xHH for a control byte, DEL or
// a byte that is not UTF-8 (no quoter writes \x64 for "d"), uHHHH (JSON,
// Go, JavaScript, Python) or UHHHHHHHH (Go, Python).
func escapeAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	switch s[i] {
	case 'x':
		return hexRun(s, i+1, 2) && (s[i+1] <= '1' || s[i+1] >= '8' || s[i+1:i+3] == "7f" || s[i+1:i+3] == "7F")
	case 'u':
		return hexRun(s, i+1, 4)
	case 'U':
		return hexRun(s, i+1, 8)
	}
	return false
}

// hexRun reports whether s holds n hexadecimal digits from i on.
func hexRun(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+n]) {
		if !isDigit(c) && !('a' <= c|0x20 && c|0x20 <= 'f') {
			return false
		}
	}
	return true
}

// unixPathTriggers are the pairs a Unix path match starts with: one of
// pathStart's characters, then "/".
var unixPathTriggers = []string{"^/", " /", "\t/", "\n/", "\r/", "\f/", "\"/", "'/", "(/", "=/", "[/", ",/", ":/", ";/",
	"{/", "}/", "</", ">/", "|/", "`/", "*/", "\x00/"}

// mayBeDrivePath reports whether s has a drive letter at a word boundary
// followed by a separator, as paths/windows needs.
func mayBeDrivePath(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == ':' && (s[i+1] == '\\' || s[i+1] == '/') && isLetter(s[i-1]) && (i < 2 || !isWordByte(s[i-2])) {
			return true
		}
	}
	return false
}

// mayBeUnixPath reports whether s has a '/' where paths/unix can start
// one: at the start or after one of pathStart's characters, and not
// followed by another '/'.
func mayBeUnixPath(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '/' && s[i+1] != '/' && (i == 0 || strings.IndexByte(pathStartChars, s[i-1]) >= 0) {
			return true
		}
	}
	return false
}

// pathStartChars are the characters of pathStart's class.
const pathStartChars = " \t\n\r\f\"'(=[,:;{}<>|`*\x00"

func isLetter(c byte) bool   { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

// PairsName names the rule that masks the values of secret-named keys.
const PairsName = "secrets/pairs"

// PairTriggers are fixed strings one of which every secret-named key
// contains, compared case-insensitively.
// Every secret word of IsSecretKey contains one (a test checks it), which
// lets clean text skip the pair scan.
var PairTriggers = []string{"pass", "pwd", "secret", "token", "key", "auth", "credential", "cookie", "bearer", "session",
	"pin", "otp", "cvv", "cvc", "sig"}

// Match is one leak found by [Find].
type Match struct {
	Name string // the Spec's name
	What string // the Spec's description
	Text string // what matched; never print it where the leak would spread
}

type compiled struct {
	Spec
	re *regexp.Regexp
}

var compiledSpecs = func() []compiled {
	out := make([]compiled, len(Specs))
	for i, s := range Specs {
		out[i].Spec = s
		if s.Expr != "" {
			out[i].re = regexp.MustCompile(s.Expr)
		}
	}
	return out
}()

// Compiled returns the compiled expression of the spec named name, or nil.
func Compiled(name string) *regexp.Regexp {
	for i := range compiledSpecs {
		if compiledSpecs[i].Name == name {
			return compiledSpecs[i].re
		}
	}
	return nil
}

// Find lists the leaks in text: every match of a detected kind, every
// match the redactor would change, and every value of a secret-named key
// that is not already a placeholder. At most one match per kind.
func Find(text string) []Match { return FindExcept(text, nil) }

// FindExcept is [Find] for the answer to a call whose arguments were sent:
// a match of a KeepSent kind (a path) that the arguments contain verbatim
// is not a leak, as the redactor keeps it too.
func FindExcept(text string, sent *Sent) []Match {
	if text == "" {
		return nil
	}
	lower := strings.ToLower(text)
	var out []Match
	for i := range compiledSpecs {
		c := &compiledSpecs[i]
		if len(c.Triggers) > 0 && !ContainsAny(lower, c.Triggers) || c.Pre != nil && !c.Pre(text) {
			continue
		}
		if m, ok := c.find(text, sent); ok {
			out = append(out, Match{c.Name, c.What, m})
		}
	}
	return out
}

// find returns the first leak of c's kind in text.
func (c *compiled) find(text string, sent *Sent) (string, bool) {
	if c.Sent {
		v := sent.SecretIn(text)
		return v, v != ""
	}
	if c.Spans != nil {
		if vs := c.Spans(text, nil); len(vs) > 0 {
			return text[vs[0].Start:vs[0].End], true
		}
		return "", false
	}
	kept := c.re.SubexpIndex("kept")
	for _, loc := range c.re.FindAllStringSubmatchIndex(text, 16) {
		m := text[loc[0]:loc[1]]
		if c.Accept != nil && !c.Accept(m) {
			continue
		}
		if c.KeepSent && kept > 0 && loc[2*kept] >= 0 && sent.KeepsAt(text, loc[2*kept], loc[2*kept+1]) {
			continue
		}
		if c.DetectOnly || c.re.ReplaceAllString(m, c.Replacement) != m {
			return m, true
		}
	}
	return "", false
}

// ContainsAny reports whether lower (already lower-cased) contains one of
// triggers; a trigger "^x" must start it.
func ContainsAny(lower string, triggers []string) bool {
	for _, t := range triggers {
		if len(t) > 1 && t[0] == '^' {
			if strings.HasPrefix(lower, t[1:]) {
				return true
			}
			continue
		}
		if strings.Contains(lower, t) {
			return true
		}
	}
	return false
}
