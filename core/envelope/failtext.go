package envelope

import (
	"cmp"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpguard/mcpguard/internal/str"
)

// TextClass is what [ClassifyText] reads in the text of a failure.
type TextClass struct {
	// Code is the error type the text names. It is never InternalError:
	// a text the agent reads anyway is never hidden behind an incident.
	Code Code
	// Retryable says whether the identical call may succeed if repeated
	// (a refused connection, a rate limit, a timeout).
	Retryable bool
	// NextStep is the step that fits the text better than the code's
	// default, or empty when the default fits: the server's own fix when
	// the line that decided states one ("…is a directory. Use
	// recursive=true to delete directories."), which is the server's text
	// and is redacted as the message is; otherwise the rule's.
	NextStep string
	// Rule names the rule that matched, as docs/wire-contract.md lists it.
	Rule string
}

// ClassifyText reads a failure's free text the way an operator would: an
// errno name or message (ENOENT, "connection refused"), an exception name
// of Node, Python, Java, .NET, Go or Rust, an SQL engine's, git's or
// Redis's message, an HTTP status line. It answers false when the text
// says nothing it knows for sure; the caller then keeps execution_failed
// (and Rule names the guard that matched, if one did).
//
// Precision comes before recall. The rules read the text's lines in order
// (the first, then the later ones a server writes its cause on, "Output:
// fatal: …" below "…failed: exit status 128", at most eight that start
// within the first MaxMessageBytes, none after a line that ends with a
// colon), each to 512 bytes, in the order docs/wire-contract.md lists
// them; the first line a rule matches decides, so the first line's
// verdict wins. The
// first rules recognise text that only mentions such words (a test
// report: "3 tests failed (TestNotFoundHandler)") and answer false; the
// others match a message's shape ("ENOENT: …", "connect ECONNREFUSED …",
// "… not found" at the end of the line), not a word anywhere.
//
// The renderers use it for the text of an error result a handler built
// itself, on every front and in the proxy; Go errors are classified by
// [errors.Is] and their own codes instead.
func ClassifyText(text string) (TextClass, bool) {
	rules := textRules()
	for _, line := range textLines(text) {
		lower := lowerFold(line)
		for _, r := range rules {
			if !r.matches(line, lower) {
				continue
			}
			c := r.class
			if fix := ownFix(line); fix != "" && c.Code != "" {
				c.NextStep = fix
			}
			return c, c.Code != ""
		}
	}
	return TextClass{}, false
}

// matches reports whether any of r's patterns matches line, whose
// lowercased form is lower.
func (r textRule) matches(line, lower string) bool {
	for _, p := range r.patterns {
		if p.admits(lower) && p.re.MatchString(line) {
			return true
		}
	}
	return false
}

// Bounds on what the rules read: a message's shape shows in its first
// words, and a result can be megabytes long.
const (
	// maxTextHead bounds the bytes of each line read.
	maxTextHead = 512
	// maxTextLines bounds the lines read, the first among them.
	maxTextLines = 8
)

// tracebackHead starts a Python traceback, whose exception is on its last
// line.
const tracebackHead = "Traceback (most recent call last)"

// textLines returns the lines of text the rules read, in order: the first
// non-blank line, then the later lines that start within the message an
// envelope shows (its first MaxMessageBytes), at most maxTextLines in all.
// A later line is read only when it starts with a letter or a digit, as a
// message does: an indented line (a stack frame, a hint's example), a
// quoted or diff line is not. A line that ends with a colon introduces
// what follows, which is data, not the failure ("Could not find exact
// match for edit:" then the text looked for): no line after it is read.
// After a Python traceback's head, its last line alone. A line that quotes
// a command's output ("Stderr: fatal: …", "Output: fatal: …") is read
// without its label, so that a rule anchored at the start matches.
func textLines(text string) []string {
	text = strings.TrimLeft(text, " \t\r\n")
	first, rest, _ := strings.Cut(text, "\n")
	lines := []string{unquote(first)}
	if strings.HasPrefix(lines[0], tracebackHead) {
		tail := strings.TrimRight(text[len(text)-min(len(text), maxTextHead):], " \t\r\n")
		return append(lines, unquote(tail[strings.LastIndexByte(tail, '\n')+1:]))
	}
	for rest != "" && len(text)-len(rest) < MaxMessageBytes && len(lines) < maxTextLines {
		if strings.HasSuffix(lines[len(lines)-1], ":") {
			break // what follows is quoted data
		}
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if line != "" && isAlnum(line[0]) {
			lines = append(lines, unquote(line))
		}
	}
	return lines
}

// quoteLabels start the lines on which a server that ran a command quotes
// the command's output, below its own generic first line (git-mcp-go:
// "Failed to show commit: git command failed: exit status 128", then
// "Output: fatal: ambiguous argument …"; @cyanheads/git-mcp-server:
// "Error: Git checkout failed: Exit Code: 1", then "Stderr: error:
// pathspec 'x' did not match …").
var quoteLabels = []string{"Stderr: ", "Output: "}

// unquote bounds a line to maxTextHead bytes, trimmed, without the label
// of a quoted output.
func unquote(line string) string {
	line = strings.TrimSpace(str.Prefix(line, maxTextHead))
	for _, l := range quoteLabels {
		if rest, ok := strings.CutPrefix(line, l); ok {
			return strings.TrimSpace(rest)
		}
	}
	return line
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maxOwnFix bounds a server's own fix that becomes a next step: a longer
// sentence is not a step but a paragraph, and is not cut (a cut could
// leave half a secret that redaction no longer recognises).
const maxOwnFix = 200

// ownFixSentence is a sentence that starts with "Use", "Try" or "Pass":
// at the start of the line, or after the end of another sentence or a
// colon.
var ownFixSentence = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[.!?;:] +)((?:Use|Try|Pass) [^\n]*?(?:[.!?](?: |$)|$))`)
})

// ownFix returns the fix a server states in the line that decided its
// text's class ("…is a directory. Use recursive=true to delete
// directories."), at most maxOwnFix bytes, or "".
func ownFix(line string) string {
	m := ownFixSentence().FindStringSubmatch(line)
	if m == nil || len(m[1]) > maxOwnFix {
		return ""
	}
	return strings.TrimSpace(m[1])
}

// textRule is one row of the classifier's table: the text has its class
// when any of its patterns matches.
type textRule struct {
	patterns []textPattern
	class    TextClass
}

// textPattern is a compiled pattern and its needles: strings, lowercased,
// one of which is in every text the pattern matches. A regular expression
// costs about a microsecond per line even when it fails, and a rule
// table of them dozens; a substring search rules most patterns out first.
type textPattern struct {
	re      *regexp.Regexp
	needles []string
}

// admits reports whether the lowercased text holds one of p's needles, so
// that p may match it.
func (p textPattern) admits(lower string) bool {
	return slices.ContainsFunc(p.needles, func(n string) bool { return strings.Contains(lower, n) })
}

// compile compiles a pattern and finds its needles.
func compile(pattern string) textPattern {
	re := regexp.MustCompile(pattern)
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err) // MustCompile has parsed it already
	}
	return textPattern{re: re, needles: needles(tree.Simplify())}
}

// needles returns strings, lowercased, one of which every text re matches
// holds: a literal's own, the longest promise of a concatenation's parts,
// all of an alternation's. re is simplified: a counted repetition is
// spelled out as concatenations, plus and question marks. The empty string, which every text holds,
// stands for no promise, so that an alternation with one branch that
// promises nothing promises nothing either.
func needles(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{lowerFold(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return needles(re.Sub[0])
	case syntax.OpConcat:
		best := []string{""}
		for _, sub := range re.Sub {
			if n := needles(sub); shortest(n) > shortest(best) {
				best = n
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			all = append(all, needles(sub)...)
		}
		return all
	}
	return []string{""}
}

// shortest returns the length of the shortest of ns, which is not empty.
func shortest(ns []string) int {
	return len(slices.MinFunc(ns, func(a, b string) int { return cmp.Compare(len(a), len(b)) }))
}

// lowerFold lowercases s so that every text a case-folding pattern
// matches holds the pattern's literals lowercased: unicode.ToLower, and
// the long s, which (?i) folds with s.
func lowerFold(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 'ſ' {
			return 's'
		}
		return unicode.ToLower(r)
	}, s)
}

// The steps rules give where a code's default would mislead or say less.
const (
	stepPath        = "Check the path: list the directory that should hold it, then retry with a path that exists."
	stepSchema      = "The query names a table or column that does not exist: list the tables or describe the table first, then retry with a name they show."
	stepGit         = "Check the repository path and the revision, branch or file named: list the branches, the log or the tracked files first, then retry with a name they show."
	stepPathKind    = "The path names a file where a directory is expected, or the reverse: list its directory to check which it is, then retry."
	stepOutside     = "Retry with a path inside the directories this server allows (a tool may list them), or ask the user to allow this one."
	stepExists      = "It already exists: use the existing one, or retry with another name."
	stepNotEmpty    = "The directory is not empty: move or remove what it holds first, or choose another directory."
	stepHost        = "The host name does not resolve: check the URL or host for a typo, then retry with a corrected one."
	stepUnavailable = "A service the tool depends on did not answer (refused, reset or unreachable): wait a few seconds and retry the same call; if it keeps failing, tell the user the service is down."
	stepBusy        = "The server or a service it uses is busy (a rate limit, a lock, too many connections): wait a few seconds, then retry the same call."
	stepSyntax      = "Fix the syntax where the message points (the query, expression or value it quotes), then retry."
)

// syscalls are the operations Node and libuv name before an errno code
// ("connect ECONNREFUSED 127.0.0.1:5432", "spawn git ENOENT").
const syscalls = `connect|read|write|getaddrinfo|getnameinfo|spawn|spawnSync|listen|bind|send|recv|accept|open|close|stat|lstat|fstat|scandir|opendir|mkdir|rmdir|unlink|rename|readlink|symlink|link|copyfile|chmod|chown|access|realpath|watch|kill|queryA|queryAaaa|querySrv|queryTxt`

// errno matches errno codes where a runtime prints them: first in a
// message ("ENOENT: no such file…"), after the operation that failed
// ("connect ECONNREFUSED …", "spawn git ENOENT"), or as an error object's
// code ("code: 'EACCES'").
func errno(codes string) string {
	return `\b(?:` + codes + `):\s|\b(?:` + syscalls + `) (?:\S+ )?(?:` + codes + `)\b|\bcode['"]?:\s*['"](?:` + codes + `)['"]`
}

// httpStatus matches an HTTP status as clients print it: "404 Not Found",
// "404 Client Error", "HTTP 404", "status code 404" (axios),
// "statusCode=404".
func httpStatus(code, reason string) string {
	return `(?i)\b` + code + ` (?:` + reason + `|Client Error|Server Error)\b|\b(?:HTTP(?:/[\d.]+)?|status(?: code)?|statusCode|status_code)[ :=]+` + code + `\b`
}

// exception matches an exception or error class name as its runtime
// prints it: followed by a colon, an opening parenthesis or the end of the
// line, never inside an identifier ("test_FileNotFoundError").
func exception(names string) string {
	return `\b(?:` + names + `)(?::|\(|$)`
}

// rule builds a row of the table.
func rule(code Code, retryable bool, step, name string, patterns ...string) textRule {
	r := textRule{class: TextClass{Code: code, Retryable: retryable, NextStep: step, Rule: name}}
	for _, p := range patterns {
		r.patterns = append(r.patterns, compile(p))
	}
	return r
}

// textRules is the classifier's table, compiled on first use so that a
// server that never sees a failure text never pays for it. The order is
// docs/wire-contract.md's: the first rule that matches decides.
var textRules = sync.OnceValue(func() []textRule {
	return slices.Concat(mentionRules(), operatorRules(), serviceRules(), inputRules())
})

// mentionRules recognise text that only mentions failures, which stays
// execution_failed.
func mentionRules() []textRule {
	return []textRule{
		rule("", false, "", "test report",
			`(?i)\b\d+ (?:tests?|specs?|examples?|assertions?|checks?) (?:failed|failing|timed out)\b`,
			`^--- FAIL: |^FAIL\s|^FAILED \S+::`, exception(`AssertionError`), `(?i)\bassert(?:ion)? failed\b`,
			`(?i)\bexpected\b.*\bbut (?:got|was|received)\b|\bgot\b.*\bwant\b`),
		rule("", false, "", "shell", `(?i)\bcommand not found\b`),
	}
}

// operatorRules name what only the operator, the user or fresh
// credentials can change: the server's setup, authentication, access.
func operatorRules() []textRule {
	return []textRule{
		rule(ConfigurationError, false, "", "missing program",
			`\bspawn(?:Sync)? \S+ ENOENT\b`, `executable file not found in \$PATH`,
			`\bdistribution '[^']+' is not found at\b`, `\bExecutable doesn't exist at\b`),
		rule(ConfigurationError, false, "", "missing module",
			`\bCannot find (?:module|package) '`, exception(`ModuleNotFoundError|ClassNotFoundException|NoClassDefFoundError`), `\bNo module named\b`),
		rule(ConfigurationError, false, "", "missing setting",
			`\b[A-Z][A-Z0-9]*_[A-Z0-9_]+ (?:environment variable )?(?:is not set|is missing|must be set|is required|not set)\b`,
			`(?i)\benvironment variable\b.*\b(?:is not set|not set|is missing|is required)\b`,
			`(?i)\b(?:is|are) not configured\b`, `\bServer cannot operate\b`,
			`(?:^|: )server misconfigured$`), // ErrConfiguration's words, bare or wrapped
		rule(ConfigurationError, false, "", "database credentials",
			`(?i)\bpassword authentication failed for user\b`, `\bAccess denied for user '`, `\bLogin failed for user '`),

		rule(AuthenticationFailed, false, "", "ssh or git credentials",
			`Permission denied \((?:publickey|password|keyboard-interactive)`,
			`(?i)\bAuthentication failed for '`, `\bcould not read (?:Username|Password) for '`),
		rule(AuthenticationFailed, false, "", "authentication",
			`(?i)\b(?:unauthori[sz]ed|unauthenticated|not authenticated|authentication (?:failed|required)|invalid (?:api[ _-]?key|token|access token|credentials|password)|bad credentials|(?:token|jwt|session|credentials?) (?:has |have |is )?expired|jwt malformed)\b`,
			httpStatus("401", "Unauthorized")),

		rule(AccessDenied, false, stepOutside, "outside the allowed directories",
			`(?i)\boutside (?:the )?allowed (?:directories|directory|paths|roots)\b`),
		rule(AccessDenied, false, "", "read-only",
			errno(`EROFS`), `(?i)\bread-only file system\b`, `\bSQLITE_READONLY\b`, `\battempt to write a readonly database\b`),
		rule(AccessDenied, false, "", "permission",
			errno(`EACCES|EPERM`),
			`(?i)\bpermission denied\b|\boperation not permitted\b|\baccess (?:is )?denied\b|\binsufficient (?:permissions|privileges)\b|\bnot authori[sz]ed to\b`,
			exception(`PermissionError|AccessDeniedException|UnauthorizedAccessException|SecurityException|AccessDenied`), `\bkind: PermissionDenied\b`,
			httpStatus("403", "Forbidden"), `^Forbidden\.?$`),
	}
}

// serviceRules name a service that did not answer, or not yet.
func serviceRules() []textRule {
	return []textRule{
		rule(ExecutionFailed, false, stepHost, "unknown host",
			errno(`ENOTFOUND`),
			`(?i)\bno such host\b|\bName or service not known\b|\bnodename nor servname provided\b|\bcould not resolve host\b|\bName does not resolve\b`,
			exception(`UnknownHostException`)),
		rule(ExecutionFailed, true, timeoutStep, "timeout",
			errno(`ETIMEDOUT|ESOCKETTIMEDOUT`),
			`(?i)\btimed out\b|\bi/o timeout\b|\bdeadline exceeded\b|\bstatement timeout\b|\bTimeout expired\b`,
			exception(`TimeoutError|TimeoutException|SocketTimeoutException`), `\bkind: TimedOut\b`,
			httpStatus("408", "Request Timeout"), httpStatus("504", "Gateway Time-?out")),
		rule(ExecutionFailed, true, stepUnavailable, "unavailable",
			errno(`ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ENETUNREACH|EHOSTUNREACH|ENETDOWN|EHOSTDOWN|EAI_AGAIN`),
			`(?i)\bconnection (?:refused|reset|aborted)\b|\bbroken pipe\b|\bsocket hang up\b|\bnetwork is unreachable\b|\bno route to host\b|\btemporary failure in name resolution\b|\bservice unavailable\b|\bserver closed the connection unexpectedly\b|\bthe database system is (?:starting up|shutting down)\b`,
			exception(`ConnectException|ConnectionRefusedError|ConnectionResetError|ConnectionAbortedError|BrokenPipeError`),
			`\bkind: (?:ConnectionRefused|ConnectionReset|ConnectionAborted|BrokenPipe|NotConnected)\b`,
			httpStatus("502", "Bad Gateway"), httpStatus("503", "Service Unavailable")),
		rule(ExecutionFailed, true, stepBusy, "busy",
			errno(`EBUSY|EAGAIN|EMFILE|ENFILE`),
			`(?i)\btoo many requests\b|\brate limit(?:ed| exceeded)\b|\bdatabase is locked\b|\bSQLITE_BUSY\b|\bdeadlock (?:detected|found)\b|\bcould not serialize access\b|\btoo many (?:connections|clients|open files)\b|\bresource temporarily unavailable\b|\bdevice or resource busy\b|\block wait timeout exceeded\b`,
			httpStatus("429", "Too Many Requests")),
	}
}

// inputRules name what the call asked for: an argument, a path, a table,
// a revision, a name, a syntax.
func inputRules() []textRule {
	return []textRule{
		rule(ValidationError, false, "", "required argument",
			`\brequired (?:argument|parameter|field|property|option)\b`,
			`(?i)\bmissing (?:required )?(?:argument|parameter|field|property)s?\b`,
			`\bInput validation error\b`, `\bInvalid arguments? for tool\b`),
		rule(ValidationError, false, stepPathKind, "wrong kind of path",
			errno(`EISDIR|ENOTDIR`), `(?i)\bis a directory\b|\bnot a directory\b|\b(?:must be|cannot write to) a directory\b`,
			exception(`IsADirectoryError|NotADirectoryError|NotDirectoryException`)),
		rule(NotFound, false, stepPath, "missing file",
			errno(`ENOENT`),
			`(?i)\bno such file or directory\b|\bcannot find the (?:file|path) specified\b|\bCould not find (?:file|a part of the path) '`,
			exception(`FileNotFoundError|FileNotFoundException|NoSuchFileException|DirectoryNotFoundException`),
			`\bkind: NotFound\b`),
		rule(NotFound, false, stepSchema, "missing table or column",
			`(?i)\bno such (?:table|column|index|view|trigger|function)\b`,
			`(?i)\b(?:relation|table|column|view|database|schema|function|index|sequence|type) "[^"]+"(?: of relation "[^"]+")? does not exist\b`,
			`\bTable '[^']+' doesn't exist\b`, `\bUnknown (?:column|table|database) '`, `\bInvalid (?:object|column) name '`, `\bORA-00942\b`, `\bORA-00904\b`),
		rule(NotFound, false, stepGit, "git object",
			`\bfatal: (?:Not a valid object name|not a valid object name|bad revision|bad object|not a git repository|couldn't find remote ref|no such path)\b`,
			`\bfatal: path '[^']*' does not exist in '`, `\bpathspec '[^']*' did not match\b`, `\bunknown revision\b`,
			`\bdid not resolve to an object\b`, `\bnot something we can merge\b`),
		rule(ExecutionFailed, false, stepExists, "already exists",
			errno(`EEXIST`), `(?i)\balready exists\b`, exception(`FileExistsError|FileAlreadyExistsException`),
			`\bUNIQUE constraint failed\b`, `\bduplicate key value violates unique constraint\b`, `\bDuplicate entry '`),
		rule(ExecutionFailed, false, stepNotEmpty, "not empty",
			errno(`ENOTEMPTY`), `(?i)\bdirectory not empty\b`, exception(`DirectoryNotEmptyException`)),
		rule(ValidationError, false, stepSyntax, "syntax",
			`(?i)\bsyntax error\b|\binvalid syntax\b|\berror in your SQL syntax\b|\bincorrect syntax near\b|\binvalid input syntax for\b`,
			`\bORA-009(?:00|33|36)\b`, `\berror parsing regexp: `, `(?i)\binvalid regular expression\b`),
		rule(ValidationError, false, "", "invalid value",
			`(?i)\binvalid (?:argument|arguments|parameter|parameters|params|input|value|option|format|date|time zone|url|uri|email|enum value|page token|cursor)\b`,
			`(?:^|: )Invalid [A-Za-z][\w-]{0,40}: `,
			`\bThe "[^"]+" argument must be\b`, `\binvalid literal for int\(\) with base\b`, `\binvalid digit found in string\b`,
			`\bcould not convert string to float\b`, `\bstrconv\.\w+: parsing\b`, `\bFor input string: "`,
			exception(`ValueError|IllegalArgumentException|ArgumentException|ArgumentNullException|ArgumentOutOfRangeException|FormatException|NumberFormatException`),
			`\bERR_INVALID_ARG_(?:TYPE|VALUE)\b|\bERR_OUT_OF_RANGE\b|\bERR_INVALID_URL\b`,
			`^[\w.\[\]"'-]{1,64} (?:must (?:be|not be|contain|match|have)|(?:cannot|can't|may not) be (?:empty|blank|null|negative|zero))\b`,
			`(?i)\bcannot specify both\b|\bmutually exclusive\b`,
			`\bis not a valid (?:branch|tag|reference|ref) name\b`, `(?i)\bunsupported (?:URL )?(?:protocol|scheme)\b`,
			`(?:^|: )ERR (?:invalid|value is not|unknown command|wrong number of arguments)\b`, `(?:^|: )WRONGTYPE `),

		rule(NotFound, false, "", "not found",
			`\bsql: no rows in result set\b`, `\bNoSuch(?:Key|Bucket|Upload|Entity)\b`,
			`(?i)\bno such (?:key|user|bucket|object|entity|record|resource|repository|branch|container|image)\b`,
			`(?i)(?:^|: )[^:]{1,100}? not found\.?$`, `(?i)(?:^|: )(?:[\w.-]+ ){0,3}not found: \S`,
			`(?:^|: )not found$`, // ErrNotFound's words, wrapped
			`(?i)\b(?:does not|doesn't) exist\b`, `(?i)^Not Found\.?$`,
			httpStatus("404", "Not Found"), httpStatus("410", "Gone")),
	}
}
