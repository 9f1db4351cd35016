package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/core/redact"
)

// A file server's roots are public to the agent: a path under one stays
// readable, a path anywhere else does not, however it is spelled.
func TestKeepPathsUnderKeepsOnlyPathsUnderTheRoots(t *testing.T) {
	t.Parallel()
	r := redact.Default().KeepPathsUnder("/srv/files/", `C:\Data`)
	for in, want := range map[string]string{
		`stat /srv/files/nope.txt: no such file or directory`:    `stat /srv/files/nope.txt: no such file or directory`,
		`open file:///srv/files/a/b.md: denied`:                  `open file:///srv/files/a/b.md: denied`,
		`open C:\Data\report.xlsx: access is denied`:             `open C:\Data\report.xlsx: access is denied`,
		`open c:/data/x/y.txt: denied`:                           `open c:/data/x/y.txt: denied`,
		`read /etc/passwd: denied`:                               `read [path]: denied`,
		`read /srv/files-old/x.txt: denied`:                      `read [path]: denied`,
		`read /srv/files/../../etc/passwd: denied`:               `read [path]: denied`,
		`open C:\Windows\system.ini: denied`:                     `open [path]: denied`,
		`open /srv/files/db_password=hunter2/x.json: denied`:     `open /srv/files/db_password=[REDACTED]/x.json: denied`,
		`token sk-proj-AbCdEf0123456789GhIjKlMn in /srv/files/k`: `token [REDACTED] in /srv/files/k`,
	} {
		assert.Equal(t, want, r.String(in), "for %q", in)
	}
	// The roots survive every way a chain narrows or extends its redactor.
	narrowed := r.With().Without("secrets/jwt").ForCall(json.RawMessage(`{"path":"nope.txt"}`))
	assert.Equal(t, "stat /srv/files/nope.txt: no such file", narrowed.String("stat /srv/files/nope.txt: no such file"))
	assert.Equal(t, "stat [path]: no such file", redact.Default().ForCall(json.RawMessage(`{"path":"nope.txt"}`)).String("stat /srv/files/nope.txt: no such file"),
		"without roots the resolved path is the server's")
	assert.Equal(t, "stat [path]: x", r.Without("paths").With(redact.DefaultRules()...).KeepPathsUnder().String("stat /elsewhere/a: x"))
}

func TestKeepPathsUnderRefusesBadRoots(t *testing.T) {
	t.Parallel()
	for _, root := range []string{"", "srv/files", "./x", "/", `C:\`} {
		assert.Panics(t, func() { redact.Default().KeepPathsUnder(root) }, "%q", root)
	}
	assert.PanicsWithValue(t, `redact: KeepPathsUnder("srv"): a root must be an absolute path, such as /srv/files or C:\data`,
		func() { redact.Default().KeepPathsUnder("srv") })
	assert.PanicsWithValue(t, `redact: KeepPathsUnder("C:\"): the file system's root keeps every path; use Without("paths") for that`,
		func() { redact.Default().KeepPathsUnder(`C:\`) }, "a drive's root is a root, not a relative path")
}

// Every drive letter, A to Z in either case, names a Windows root.
func TestKeepPathsUnderTakesEveryDriveLetter(t *testing.T) {
	t.Parallel()
	r := redact.Default().KeepPathsUnder(`A:\share`, `z:\share`)
	for _, in := range []string{`open a:\share\x.txt: denied`, `open Z:\share\y.txt: denied`} {
		assert.Equal(t, in, r.String(in))
	}
	assert.Equal(t, "open [path]: denied", r.String(`open B:\share\x.txt: denied`))
}

// Roots cost nothing on text without a path: clean text still allocates
// nothing.
func TestKeepPathsUnderCleanTextAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	r := redact.Default().KeepPathsUnder("/srv/files")
	for _, s := range []string{"relation users does not exist", `{"error_type":"not_found","message":"No order ORD-1 exists."}`} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = r.String(s) }), s)
	}
}
