package envelope_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// failure is one text of the corpus and what an agent needs it to be.
type failure struct {
	text      string
	code      envelope.Code
	retryable bool
}

const (
	auth   = envelope.AuthenticationFailed
	denied = envelope.AccessDenied
	nf     = envelope.NotFound
	conf   = envelope.ConfigurationError
	inval  = envelope.ValidationError
	failed = envelope.ExecutionFailed
)

// corpus holds real failure texts: the npm servers the e2e tests run
// (server-filesystem, server-memory, the TypeScript SDK's own), the
// servers of issue 37's table (mcp-sqlite, mcp-server-git), and each
// runtime's standard messages as it prints them (collected by running
// Node 20, Python 3.11, Java 21, Rust, Go, git and sqlite3, or copied from
// the engines' documentation for PostgreSQL, MySQL, SQL Server, Oracle and
// .NET).
var corpus = []failure{
	// server-filesystem (Node fs errors and its own messages).
	{"ENOENT: no such file or directory, open '/tmp/x/missing.txt'", nf, false},
	{"ENOENT: no such file or directory, stat '/tmp/x/nope'", nf, false},
	{"ENOENT: no such file or directory, scandir '/tmp/x/gone'", nf, false},
	{"Error: ENOENT: no such file or directory, lstat '/tmp/x/a'", nf, false},
	{"Access denied - path outside allowed directories: /etc/passwd not in /tmp/x", denied, false},
	{"Access denied - symlink target outside allowed directories: /etc not in /tmp/x", denied, false},
	{"Parent directory does not exist: /tmp/x/a/b", nf, false},
	{"Destination already exists: /tmp/x/b.txt", failed, false},
	{"EACCES: permission denied, open '/root/x'", denied, false},
	{"EPERM: operation not permitted, unlink '/tmp/x/locked'", denied, false},
	{"ENOTDIR: not a directory, scandir '/etc/hostname'", inval, false},
	{"EISDIR: illegal operation on a directory, read", inval, false},
	{"EEXIST: file already exists, mkdir '/tmp'", failed, false},
	{"ENOTEMPTY: directory not empty, rmdir '/usr'", failed, false},
	{"Cannot specify both head and tail parameters simultaneously", inval, false},
	{"Server cannot operate: No allowed directories available. Server was started without command-line directories and client either does not support MCP roots protocol or provided empty roots.", conf, false},
	// server-memory.
	{"Entity with name Nobody not found", nf, false},
	// The TypeScript SDK, for any server built on it.
	{`MCP error -32602: Input validation error: Invalid arguments for tool read_file: [{"expected": "string", "code": "invalid_type", "path": ["path"], "message": "Invalid input: expected string, received undefined"}]`, inval, false},
	{"MCP error -32602: Tool nope not found", nf, false},
	// mcp-sqlite and sqlite3.
	{"Error: SQLITE_ERROR: no such table: x", nf, false},
	{`Table "x" does not exist`, nf, false},
	{`Error: SQLITE_ERROR: near "THIS": syntax error`, inval, false},
	{"Error: in prepare, no such table: x", nf, false},
	{"OperationalError: no such column: nocol", nf, false},
	{"SQLITE_BUSY: database is locked", failed, true},
	{"SQLITE_READONLY: attempt to write a readonly database", denied, false},
	{"SQLITE_CONSTRAINT: UNIQUE constraint failed: users.email", failed, false},
	// mcp-server-git and git.
	{"fatal: Not a valid object name deadbeef", nf, false},
	// @cyanheads/git-mcp-server 2.15.3 quotes git's standard error below a
	// generic first line.
	{"Error: Git cat-file failed: Exit Code: 128\nStderr: fatal: Not a valid object name nosuchref\n\nStdout: ", nf, false},
	{"Error: Git checkout failed: Exit Code: 1\nStderr: error: pathspec 'nosuch' did not match any file(s) known to git\n\nStdout: ", nf, false},
	{"Error: Git commit failed: Exit Code: 1\nStderr: \n\nStdout: nothing to commit, working tree clean", failed, false},
	{"error: pathspec 'nope' did not match any file(s) known to git", nf, false},
	{"fatal: ambiguous argument 'nope': unknown revision or path not in the working tree.", nf, false},
	{"fatal: bad revision 'nope'", nf, false},
	{"fatal: not a git repository (or any of the parent directories): .git", nf, false},
	{"Cmd('git') failed due to: exit code(128) cmdline: git checkout nope stderr: 'error: pathspec 'nope' did not match any file(s) known to git'", nf, false},
	{"Ref 'nope' did not resolve to an object", nf, false},
	{"fatal: a branch named 'master' already exists", failed, false},
	{"fatal: Authentication failed for 'https://github.com/o/r.git/'", auth, false},
	{"git@github.com: Permission denied (publickey).", auth, false},
	{"fatal: could not read Username for 'https://github.com': terminal prompts disabled", auth, false},
	// Node.
	{"connect ECONNREFUSED 127.0.0.1:5432", failed, true},
	{"Error: connect ECONNREFUSED ::1:6379", failed, true},
	{"read ECONNRESET", failed, true},
	{"socket hang up", failed, true},
	{"connect ETIMEDOUT 10.0.0.1:443", failed, true},
	{"getaddrinfo ENOTFOUND nosuch.invalid", failed, false},
	{"getaddrinfo EAI_AGAIN registry.npmjs.org", failed, true},
	{"spawn git ENOENT", conf, false},
	{"spawnSync nosuchprog ENOENT", conf, false},
	{"Cannot find module 'better-sqlite3'", conf, false},
	{`The "path" argument must be of type string or an instance of Buffer or URL. Received undefined`, inval, false},
	{"Invalid URL", inval, false},
	{"Invalid time zone specified: Mars/Base", inval, false},
	{"Invalid resourceId: 0. Must be a finite positive integer.", inval, false},
	{"EMFILE: too many open files, open '/tmp/x'", failed, true},
	{"Request failed with status code 404", nf, false},
	{"Request failed with status code 401", auth, false},
	{"Request failed with status code 429", failed, true},
	{"Request failed with status code 503", failed, true},
	// Python.
	{"FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/x'", nf, false},
	{"PermissionError: [Errno 13] Permission denied: '/root/x'", denied, false},
	{"IsADirectoryError: [Errno 21] Is a directory: '/tmp'", inval, false},
	{"NotADirectoryError: [Errno 20] Not a directory: '/etc/hostname'", inval, false},
	{"FileExistsError: [Errno 17] File exists: '/tmp'", failed, false},
	{"ValueError: invalid literal for int() with base 10: 'abc'", inval, false},
	{"ConnectionRefusedError: [Errno 111] Connection refused", failed, true},
	{"URLError: <urlopen error [Errno 111] Connection refused>", failed, true},
	{"gaierror: [Errno -2] Name or service not known", failed, false},
	{"ModuleNotFoundError: No module named 'psycopg2'", conf, false},
	{"TimeoutError: timed out", failed, true},
	{"Traceback (most recent call last):\n  File \"/srv/app.py\", line 3, in <module>\n    open('/data/x.csv')\nFileNotFoundError: [Errno 2] No such file or directory: '/data/x.csv'\n", nf, false},
	{"Traceback (most recent call last):\n  File \"/srv/db.py\", line 9, in query\n    cur.execute(sql)\nsqlite3.OperationalError: no such table: orders", nf, false},
	{"404 Client Error: Not Found for url: https://api.example.com/items/9", nf, false},
	{"403 Client Error: Forbidden for url: https://api.example.com/admin", denied, false},
	{"429 Client Error: Too Many Requests for url: https://api.example.com/search", failed, true},
	{"503 Server Error: Service Unavailable for url: https://api.example.com/", failed, true},
	// Java.
	{"java.io.FileNotFoundException: /nonexistent/x (No such file or directory)", nf, false},
	{"java.nio.file.NoSuchFileException: /nonexistent/x", nf, false},
	{"java.nio.file.AccessDeniedException: /root/x", denied, false},
	{"java.net.ConnectException: Connection refused", failed, true},
	{"java.net.UnknownHostException: nosuch.invalid: Name or service not known", failed, false},
	{"java.lang.NumberFormatException: For input string: \"abc\"", inval, false},
	{"java.nio.file.FileAlreadyExistsException: /tmp", failed, false},
	{"java.lang.IllegalArgumentException: page size must be positive", inval, false},
	{"java.net.SocketTimeoutException: Read timed out", failed, true},
	{"Exception in thread \"main\" java.io.FileNotFoundException: config.yml (No such file or directory)", nf, false},
	// .NET.
	{"System.IO.FileNotFoundException: Could not find file '/data/x.csv'.", nf, false},
	{"System.IO.DirectoryNotFoundException: Could not find a part of the path '/data/in'.", nf, false},
	{"System.UnauthorizedAccessException: Access to the path '/root/x' is denied.", denied, false},
	{"System.ArgumentOutOfRangeException: Specified argument was out of the range of valid values. (Parameter 'count')", inval, false},
	{"System.FormatException: The input string 'abc' was not in a correct format.", inval, false},
	{"System.TimeoutException: The operation has timed out.", failed, true},
	{"Unhandled exception. System.IO.FileNotFoundException: Could not find file '/x'.", nf, false},
	// Go.
	{"open /data/x.csv: no such file or directory", nf, false},
	{"open /root/x: permission denied", denied, false},
	{"dial tcp 127.0.0.1:5432: connect: connection refused", failed, true},
	{"read tcp 10.0.0.2:5123->10.0.0.1:443: i/o timeout", failed, true},
	{"context deadline exceeded", failed, true},
	{"lookup nosuch.invalid: no such host", failed, false},
	{"sql: no rows in result set", nf, false},
	{`strconv.Atoi: parsing "abc": invalid syntax`, inval, false},
	{`exec: "git": executable file not found in $PATH`, conf, false},
	{"write tcp 10.0.0.2:5123->10.0.0.1:443: write: broken pipe", failed, true},
	{"record not found", nf, false},
	// Rust.
	{"No such file or directory (os error 2)", nf, false},
	{`Os { code: 2, kind: NotFound, message: "No such file or directory" }`, nf, false},
	{"Permission denied (os error 13)", denied, false},
	{"Connection refused (os error 111)", failed, true},
	{"invalid digit found in string", inval, false},
	// PostgreSQL.
	{`ERROR: relation "orders" does not exist (SQLSTATE 42P01)`, nf, false},
	{`pq: column "nme" does not exist`, nf, false},
	{`ERROR: syntax error at or near "SELEC"`, inval, false},
	{"ERROR: permission denied for table payroll", denied, false},
	{`FATAL: password authentication failed for user "app"`, conf, false},
	{`ERROR: invalid input syntax for type integer: "abc"`, inval, false},
	{`ERROR: duplicate key value violates unique constraint "users_email_key"`, failed, false},
	{"ERROR: canceling statement due to statement timeout", failed, true},
	{"ERROR: deadlock detected", failed, true},
	{"FATAL: sorry, too many clients already", failed, true},
	{"FATAL: the database system is starting up", failed, true},
	{`FATAL: database "shop" does not exist`, nf, false},
	// MySQL.
	{"Error 1146 (42S02): Table 'shop.orderz' doesn't exist", nf, false},
	{"Error 1054 (42S22): Unknown column 'nme' in 'field list'", nf, false},
	{"Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version", inval, false},
	{"Error 1045 (28000): Access denied for user 'app'@'10.0.0.2' (using password: YES)", conf, false},
	{"Error 1213 (40001): Deadlock found when trying to get lock; try restarting transaction", failed, true},
	{"Error 1205 (HY000): Lock wait timeout exceeded; try restarting transaction", failed, true},
	{"Error 1062 (23000): Duplicate entry 'a@b.c' for key 'users.email'", failed, false},
	// SQL Server and Oracle.
	{"Invalid object name 'dbo.Orderz'.", nf, false},
	{"Incorrect syntax near 'FROM'.", inval, false},
	{"Login failed for user 'app'.", conf, false},
	{"ORA-00942: table or view does not exist", nf, false},
	{"ORA-00933: SQL command not properly ended", inval, false},
	// HTTP and API services.
	{"HTTP 404 Not Found", nf, false},
	{"404 Not Found", nf, false},
	{"Not Found", nf, false},
	{"HTTP/1.1 401 Unauthorized", auth, false},
	{"Unauthorized", auth, false},
	{"403 Forbidden", denied, false},
	{"Forbidden", denied, false},
	{"429 Too Many Requests", failed, true},
	{"Rate limit exceeded, retry in 30 seconds", failed, true},
	{"502 Bad Gateway", failed, true},
	{"503 Service Unavailable", failed, true},
	{"504 Gateway Timeout", failed, true},
	{"Bad credentials", auth, false},
	{"jwt expired", auth, false},
	{"Invalid API key provided: sk-test", auth, false},
	{"AccessDenied: Access Denied", denied, false},
	{"NoSuchKey: The specified key does not exist.", nf, false},
	{"Error response from daemon: No such container: web", nf, false},
	// Handwritten validation messages.
	{"limit must be at most 50", inval, false},
	{`required argument "title" not found`, inval, false},
	{"Missing required parameter: query", inval, false},
	{"OPENAI_API_KEY environment variable is not set", conf, false},
	{"GITHUB_TOKEN is not set", conf, false},

	// Texts that only mention such words, or say nothing an agent could
	// act on differently: they stay execution_failed.
	{"3 tests failed (TestNotFoundHandler)", failed, false},
	{"2 tests failed: TestPermissionDenied, TestTimeout", failed, false},
	{"--- FAIL: TestOpenMissingFile (0.00s)", failed, false},
	{"FAILED tests/test_io.py::test_no_such_file - AssertionError", failed, false},
	{"AssertionError: expected ENOENT", failed, false},
	{"assertion failed: left == right (not found)", failed, false},
	{"handler: got 200, want 404 Not Found", failed, false},
	{"expected status 404 but got 200", failed, false},
	{"bash: frobnicate: command not found", failed, false},
	{"the export stopped halfway through", failed, false},
	{"KeyError: 'k'", failed, false},
	{"TypeError: Cannot read properties of undefined (reading 'id')", failed, false},
	{"Could not find exact match for edit:\nthe user was not found", failed, false},
	{"Expected property name or '}' in JSON at position 1", failed, false},
	{"JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)", failed, false},
	{"fatal: '/nonexistent' does not appear to be a git repository", failed, false},
	{"product 404 has no price", failed, false},
	{"the ENOENT handling test is flaky", failed, false},
	{"renamed TestNotFound to TestMissing", failed, false},
	{"NullPointerException", failed, false},
	{"panic: runtime error: index out of range [3] with length 3", failed, false},
	{"dial postgres://app:secret@db:5432 failed", failed, false},
	{"quota of 5 reports per day reached", failed, false},
	// "X is required" is as often "Authentication is required" or "A
	// restart is required" as a missing argument; the README's table
	// promises execution_failed for a handler's own "title is required".
	{"title is required", failed, false},
	{"A restart is required", failed, false},
	{"", failed, false},
}

// classify is what the renderer decides for a text: ClassifyText's class,
// or execution_failed and not retryable when it answers false.
func classify(text string) (envelope.Code, bool) {
	c, ok := envelope.ClassifyText(text)
	if !ok {
		return envelope.ExecutionFailed, false
	}
	return c.Code, c.Retryable
}

func TestClassifyTextCorpus(t *testing.T) {
	t.Parallel()
	for _, f := range corpus {
		code, retryable := classify(f.text)
		assert.Equal(t, f.code, code, "%q", f.text)
		assert.Equal(t, f.retryable, retryable, "retryable of %q", f.text)
		// The needles only spare regular expressions: every pattern,
		// tried on every text in any case, answers the same.
		for _, s := range []string{f.text, strings.ToUpper(f.text), strings.ToLower(f.text)} {
			c1, ok1 := envelope.ClassifyText(s)
			c2, ok2 := envelope.ClassifyTextEveryPattern(s)
			assert.Equal(t, c2, c1, "%q", s)
			assert.Equal(t, ok2, ok1, "%q", s)
		}
	}
	_, retry := classify("databaſe is locked")
	assert.True(t, retry, "the long s folds with s, in the needles too")
	t.Log("\n" + precisionRecall(corpus))
}

// precisionRecall tabulates, per type, how many of the texts the
// classifier gave that type were meant to have it (precision) and how many
// of the texts meant to have it got it (recall).
func precisionRecall(fs []failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %8s %9s %6s %9s\n", "type", "texts", "precision", "recall", "retryable")
	for _, code := range envelope.Codes() {
		var want, got, both, retry int
		for _, f := range fs {
			c, r := classify(f.text)
			want += b2i(f.code == code)
			got += b2i(c == code)
			both += b2i(c == code && f.code == code)
			retry += b2i(c == code && f.code == code && r == f.retryable)
		}
		if want == 0 && got == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-22s %8d %9s %6s %9s\n", code, want, ratio(both, got), ratio(both, want), ratio(retry, both))
	}
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

func TestClassifyTextNeverHidesOrInvents(t *testing.T) {
	t.Parallel()
	for _, f := range corpus {
		c, ok := envelope.ClassifyText(f.text)
		if !ok {
			assert.Empty(t, c.Code, "%q: a text no rule claims has no code", f.text)
			continue
		}
		assert.True(t, c.Code.Valid(), "%q", f.text)
		assert.NotEqual(t, envelope.InternalError, c.Code, "%q: text the agent reads anyway is never hidden", f.text)
		assert.NotEmpty(t, c.Rule, "%q", f.text)
	}
	// A guard rule answers false and no code, and names itself.
	c, ok := envelope.ClassifyText("3 tests failed (TestNotFoundHandler)")
	assert.False(t, ok)
	assert.Equal(t, envelope.TextClass{Rule: "test report"}, c)
	c, ok = envelope.ClassifyText("the export stopped halfway through")
	assert.False(t, ok)
	assert.Equal(t, envelope.TextClass{}, c)
}

func TestClassifyTextReadsItsLines(t *testing.T) {
	t.Parallel()
	const enoent = "ENOENT: no such file or directory, open '/x'"
	for _, c := range []struct {
		text string
		want envelope.Code
		why  string
	}{
		{"the import stopped\n" + enoent, nf, "a later line is read"},
		{"connect ECONNREFUSED 10.0.0.1:5432\n" + enoent, failed, "the first line's verdict wins"},
		{"3 tests failed (TestNotFoundHandler)\n" + enoent, failed, "a guard on the first line wins"},
		{"the import stopped\n2 tests failed\n" + enoent, failed, "a guard on a later line ends the reading"},
		{"the import stopped\nthe rows were:\n" + enoent, failed, "a line that ends with a colon quotes what follows"},
		{"Could not find exact match for edit:\nthe user was not found", failed, "server-filesystem's failed edit quotes the text"},
		{"the import stopped\n  " + enoent, failed, "an indented line is not read"},
		{"the import stopped\n-" + enoent, failed, "a diff or list line is not read"},
		{"the import stopped\n\n\r\n" + enoent, nf, "blank lines are skipped"},
		{"the import stopped\n404 Not Found", nf, "a line may start with a digit"},
		{"\nStderr: Forbidden", denied, "a quote's label is not read, so an anchored rule matches"},
		{"Error: Git show failed\nOutput: Forbidden", denied, "Output: is a quote's label"},
		{"Error: Git show failed\nstderr: Forbidden", failed, "a label is spelled as servers spell it"},
		{"Error: Git show failed\nStderr: \nfatal: Not a valid object name x", failed, "an empty quote introduces what follows"},
		{"\n\n  " + enoent + "\r\nat Object.openSync (node:fs:601:3)", nf, "leading blank lines and a CRLF do not hide the head"},
		{strings.Repeat("x", 2046) + "\n" + enoent, nf, "a line that starts within the message's 2048 bytes is read"},
		{strings.Repeat("x", 2047) + "\n" + enoent, failed, "one that starts past them is not"},
		{"a\nb\nc\nd\ne\nf\ng\n" + enoent, nf, "eight lines are read"},
		{"a\nb\nc\nd\ne\nf\ng\nh\n" + enoent, failed, "the ninth is not"},
		{"a\n  b\n  c\n  d\n  e\n  f\n  g\n  h\n" + enoent, nf, "lines not read do not count"},
		{"Error: x\nStderr: " + strings.Repeat("y", 600) + " fatal: Not a valid object name x", failed, "a line is read to 512 bytes"},
		{"Error: x\nStderr: " + strings.Repeat("y", 513-len("Stderr: ")-len(" permission denied")) + " permission denied", failed, "not its 513th"},
		{"Error: x\nStderr: " + strings.Repeat("y", 512-len("Stderr: ")-len(" permission denied")) + " permission denied", denied, "its 512th byte included"},
	} {
		got, _ := classify(c.text)
		assert.Equal(t, c.want, got, "%s: %.80q", c.why, c.text)
	}
	// A later line is read when it starts with a letter or a digit, at
	// each end of their ranges, and not with the characters beside them.
	for _, c := range "azAZ09" {
		_, retry := classify("the import stopped\n" + string(c) + " connection refused")
		assert.True(t, retry, "a line that starts with %q is read", c)
	}
	for _, c := range "`{@[/:" {
		_, retry := classify("the import stopped\n" + string(c) + " connection refused")
		assert.False(t, retry, "a line that starts with %q is not read", c)
	}
	// A message's shape shows in its first 512 bytes.
	_, retry := classify(strings.Repeat("x", 600) + " connection refused")
	assert.False(t, retry, "only the head is read")
	_, retry = classify(strings.Repeat("x", 492) + " connection refused")
	assert.True(t, retry)
	// A traceback's last line, however long the traceback.
	tb := "Traceback (most recent call last):\n" + strings.Repeat("  File \"x.py\", line 1, in f\n", 100) + "PermissionError: [Errno 13] Permission denied: '/x'\n\n"
	c, _ := classify(tb)
	assert.Equal(t, denied, c)
	c, _ = classify("Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nForbidden")
	assert.Equal(t, denied, c, "the last line alone, which a rule may anchor")
	c, _ = classify("Traceback (most recent call last)")
	assert.Equal(t, failed, c, "a traceback's head alone says nothing")
	c, _ = classify("Traceback (most recent call last):\nPermissionError: x")
	assert.Equal(t, denied, c, "a traceback shorter than the tail that is read")
	c, _ = classify("Traceback (most recent call last):\nValueError: x\nDuring handling\nForbidden")
	assert.Equal(t, denied, c, "the last line alone, not the lines between")
	// A text shorter than the tail and one exactly as long.
	exact := "Traceback (most recent call last):\n" + strings.Repeat("y", 512-len("Traceback (most recent call last):\n")-len("\nsqlite3.OperationalError: no such table: t")) + "\nsqlite3.OperationalError: no such table: t"
	require.Len(t, exact, 512)
	c, _ = classify(exact)
	assert.Equal(t, nf, c)
}

// TestClassifyTextTakesTheServersOwnFix: a sentence of the deciding line
// that starts with Use, Try or Pass is the next step, in place of the
// rule's.
func TestClassifyTextTakesTheServersOwnFix(t *testing.T) {
	t.Parallel()
	long := "Use " + strings.Repeat("x", 195) + "."
	require.Len(t, long, 200)
	for text, want := range map[string]string{
		"Error: /srv/d is a directory. Use recursive=true to delete directories.":            "Use recursive=true to delete directories.",
		"ENOENT: no such file or directory. Use an existing path. Then retry.":               "Use an existing path.",
		"Invalid value: Pass a number for limit":                                             "Pass a number for limit",
		"Rate limit exceeded! Try again in 30 seconds":                                       "Try again in 30 seconds",
		"rate limit exceeded; Try again later.":                                              "Try again later.",
		"Error: /srv/d is a directory. " + long:                                              long,
		"Error: /srv/d is a directory. " + long + "x":                                        envelope.StepPathKind,
		"Error: /srv/d is a directory, use recursive=true":                                   envelope.StepPathKind,
		"Error: /srv/d is a directory. Useful: recursive=true":                               envelope.StepPathKind,
		"Error: /srv/d is a directory.Use recursive=true":                                    envelope.StepPathKind,
		"Failed: exit status 1\nOutput: fatal: bad revision 'x'\nUse '--' to separate paths": envelope.StepGit,
	} {
		c, ok := envelope.ClassifyText(text)
		assert.True(t, ok, text)
		assert.Equal(t, want, c.NextStep, text)
	}
	// Only a classified text's: a guard's or an unclassified one's fix is no step.
	c, ok := envelope.ClassifyText("3 tests failed. Use -v to see them.")
	assert.False(t, ok)
	assert.Equal(t, envelope.TextClass{Rule: "test report"}, c)
	c, ok = envelope.ClassifyText("the export stopped. Try again later.")
	assert.False(t, ok)
	assert.Equal(t, envelope.TextClass{}, c)
	// On the wire the fix is the first step, redacted as the message is.
	r := envelope.NewRenderer(envelope.WithLogger(discard()))
	env, raw := text(t, r, "EISDIR: illegal operation on a directory. Use the token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB to delete it.")
	require.NotEmpty(t, env.NextSteps, raw)
	assert.Contains(t, env.NextSteps[0], "Use the token ", raw)
	assert.NotContains(t, raw, "ghp_0123456789", "the fix is redacted")
}

func TestClassifiedTextOnTheWire(t *testing.T) {
	t.Parallel()
	r := envelope.NewRenderer()
	env, raw := text(t, r, "ENOENT: no such file or directory, open '/x'")
	assert.Equal(t, nf, env.ErrorType, raw)
	assert.False(t, env.Retryable)
	require.Len(t, env.NextSteps, 1, "the rule's step replaces the code's generic default: %s", raw)
	assert.Contains(t, env.NextSteps[0], "Check the path")

	env, raw = text(t, r, "connect ECONNREFUSED 127.0.0.1:5432")
	assert.Equal(t, failed, env.ErrorType, raw)
	assert.True(t, env.Retryable, raw)
	assert.NotContains(t, raw, "adjust the input", "a refused connection is not the input's fault")

	env, raw = text(t, r, "Entity with name Nobody not found")
	assert.Equal(t, nf, env.ErrorType, raw)
	assert.Equal(t, envelope.DefaultNextSteps(nf), env.NextSteps, "a rule without a step keeps the default")

	// An operator's default steps for the code still follow the rule's.
	mine := envelope.NewRenderer(envelope.WithDefaultNextSteps(nf, "Call files_search first."))
	env, raw = text(t, mine, "ENOENT: no such file or directory, open '/x'")
	require.Len(t, env.NextSteps, 2, raw)
	assert.Contains(t, env.NextSteps[0], "Check the path")
	assert.Equal(t, "Call files_search first.", env.NextSteps[1])

	// A code the text gave in JSON is not read again.
	env, raw = text(t, r, `{"error":"validation","message":"ENOENT: no such file or directory"}`)
	assert.Equal(t, inval, env.ErrorType, raw)
	// A guard keeps the generic execution_failed.
	env, raw = text(t, r, "3 tests failed (TestNotFoundHandler)")
	assert.Equal(t, failed, env.ErrorType, raw)
	assert.Equal(t, envelope.DefaultNextSteps(failed), env.NextSteps)
	// Hints and other steps functions see the rule's code.
	var seen envelope.Code
	ctx := envelope.ContextWithStepsFunc(context.Background(), func(_ context.Context, _ envelope.Call, code envelope.Code, _ error) ([]string, bool) {
		seen = code
		return nil, false
	})
	_ = r.Text(ctx, call, "PermissionError: [Errno 13] Permission denied: '/x'")
	assert.Equal(t, denied, seen)
}

func BenchmarkClassifyText(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"errno", "ENOENT: no such file or directory, open '/tmp/x/missing.txt'"},
		{"not found", "Entity with name Nobody not found"},
		{"unclassified", "the export stopped halfway through the table of orders"},
	} {
		b.Run(c.name, func(b *testing.B) {
			envelope.ClassifyText(c.text)
			b.ReportAllocs()
			for b.Loop() {
				envelope.ClassifyText(c.text)
			}
		})
	}
}

// heldOut holds texts written down after the rules, from memory of real
// servers and client libraries (Octokit, psycopg2, SQLAlchemy, redis-py,
// botocore, the OpenAI and Anthropic SDKs, JDBC, SqlClient, reqwest, Go's
// net/http, npm), and not tuned against: the rules must never give them a
// wrong type (precision), while the types they miss (recall) are logged.
var heldOut = []failure{
	{"ENOENT: no such file or directory, copyfile '/a' -> '/b'", nf, false},
	{"Error: EACCES: permission denied, mkdir '/var/lib/app'", denied, false},
	{"FetchError: request to http://localhost:3000/api failed, reason: connect ECONNREFUSED 127.0.0.1:3000", failed, true},
	{"Error: getaddrinfo ENOTFOUND api.github.co", failed, false},
	{"HttpError: Not Found", nf, false},
	{"HttpError: Bad credentials", auth, false},
	{"HttpError: API rate limit exceeded for 1.2.3.4.", failed, true},
	{"RequestError [HttpError]: Resource not accessible by integration", denied, false},
	{"psycopg2.errors.UndefinedTable: relation \"foo\" does not exist\nLINE 1: SELECT * FROM foo", nf, false},
	{"psycopg2.OperationalError: could not connect to server: Connection refused", failed, true},
	{"sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such table: users", nf, false},
	{"redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379. Connection refused.", failed, true},
	{"botocore.exceptions.ClientError: An error occurred (NoSuchBucket) when calling the ListObjectsV2 operation: The specified bucket does not exist", nf, false},
	{"botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the GetObject operation: Access Denied", denied, false},
	{"botocore.exceptions.NoCredentialsError: Unable to locate credentials", conf, false},
	{"openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided'}}", auth, false},
	{"openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached'}}", failed, true},
	{"anthropic.APIStatusError: Error code: 529 - overloaded_error", failed, true},
	{"java.sql.SQLSyntaxErrorException: Table 'test.users' doesn't exist", nf, false},
	{"org.postgresql.util.PSQLException: ERROR: relation \"users\" does not exist", nf, false},
	{"Microsoft.Data.SqlClient.SqlException (0x80131904): Invalid object name 'Users'.", nf, false},
	{"System.Net.Http.HttpRequestException: Connection refused (localhost:5000)", failed, true},
	{"thread 'main' panicked at src/main.rs:4:5: called `Result::unwrap()` on an `Err` value: Os { code: 13, kind: PermissionDenied, message: \"Permission denied\" }", denied, false},
	{"Error: reqwest::Error { kind: Request, url: \"http://localhost:1/\", source: hyper::Error(Connect, ConnectError(\"tcp connect error\", Os { code: 111, kind: ConnectionRefused, message: \"Connection refused\" })) }", failed, true},
	{"stat /data/in.csv: no such file or directory", nf, false},
	{"mkdir /etc/app: permission denied", denied, false},
	{"Get \"https://api.example.com/v1/x\": dial tcp: lookup api.example.com: no such host", failed, false},
	{"Get \"http://127.0.0.1:8080/\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", failed, true},
	{"pq: relation \"orders\" does not exist", nf, false},
	{"ERROR 1049 (42000): Unknown database 'shop'", nf, false},
	{"fatal: repository 'https://github.com/o/nope.git/' not found", nf, false},
	{"error: src refspec main does not match any", nf, false},
	{"fatal: destination path 'repo' already exists and is not an empty directory.", failed, false},
	{"npm ERR! 404 Not Found - GET https://registry.npmjs.org/nope - Not found", nf, false},
	{"Error: Cannot find module '/app/dist/index.js'", conf, false},
	{"ZodError: [{\"code\":\"invalid_type\",\"expected\":\"string\",\"received\":\"number\",\"path\":[\"name\"],\"message\":\"Expected string, received number\"}]", inval, false},
	{"TypeError: fetch failed", failed, false},
	{"Error: ETIMEDOUT", failed, true},
	{"Error: EPIPE: broken pipe, write", failed, true},
	{"Request failed with status code 500", failed, false},
	{"The operation was aborted due to timeout", failed, true},
	{"AbortError: This operation was aborted", failed, false},
	{"no such table: main.users", nf, false},
	{"Permission denied: user does not have access to project x", denied, false},
	{"User not found", nf, false},
	{"Resource not found: /repos/o/r/issues/999", nf, false},
	{"Issue #999 does not exist", nf, false},
	{"Error: You must be logged in to perform this action", auth, false},
}

func TestClassifyTextHeldOut(t *testing.T) {
	t.Parallel()
	for _, f := range heldOut {
		code, retryable := classify(f.text)
		assert.False(t, retryable && !f.retryable, "retryable, wrongly, for %q", f.text)
		if code != envelope.ExecutionFailed {
			assert.Equal(t, f.code, code, "a wrong type for %q", f.text)
		} else if f.code != envelope.ExecutionFailed {
			t.Logf("missed: %q (%s)", f.text, f.code)
		}
	}
	t.Log("\n" + precisionRecall(heldOut))
}
