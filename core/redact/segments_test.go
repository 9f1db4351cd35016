package redact_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/redact"
)

// TestPathNeverEndsInsideASegment holds the path rule to whole segments
// and the secret-key rules to the inside of paths: before, the path rule
// stopped at "=", so /var/lib/app/db_password=hunter2/memory.json went out
// as "[path]=hunter2/memory.json", the secret on the wire, and a Hive-style
// partition path was cut in two.
func TestPathNeverEndsInsideASegment(t *testing.T) {
	t.Parallel()
	for _, tc := range []ruleCase{
		{"secret key in a path", `failed to write file /var/lib/app/db_password=hunter2/memory.json`,
			[]string{"hunter2", "memory.json", "/var/lib"}, []string{"failed to write file [path]"}},
		{"secret key ends a path", `open /srv/x/api_key=sk9f8e7d6c: denied`, []string{"sk9f8e7d6c", "/srv/x"}, []string{"open [path]: denied"}},
		{"partition path", `open /data/year=2024/month=01/part-0.parquet: no such file`,
			[]string{"2024", "month", "part-0.parquet"}, []string{"open [path]: no such file"}},
		{"parenthesised copy", `open /home/bob/report(1).pdf: denied`, []string{"report", "(1)", ".pdf"}, []string{"open [path]: denied"}},
		{"bracketed segment", `build /srv/app/pages/[id]/page.tsx failed`, []string{"[id]", "page.tsx"}, []string{"build [path] failed"}},
		{"ampersand", `open /srv/a/R&D/plan.md: denied`, []string{"R&D", "plan.md"}, []string{"open [path]: denied"}},
		{"colon in a segment", `open /var/lib/docker/overlay2/sha256:ab12cd/diff/etc: denied`, []string{"ab12cd", "diff/etc"}, []string{"open [path]: denied"}},
		{"comma in a file name", `open /srv/x/a,b.txt: denied`, []string{"b.txt"}, []string{"open [path]: denied"}},
		{"line and column", `read /srv/app/conf/x.yml:12:3: bad indent`, []string{"x.yml", ":12:3"}, []string{"read [path]: bad indent"}},
		{"windows secret segment", `open C:\app\token=abc123def\x.json failed`, []string{"abc123def"}, []string{"failed"}},
	} {
		tc.check(t)
	}
	// What closes a path is not a segment of it.
	for in, want := range map[string]string{
		`(see /opt/shop/logs/app.log)`: `(see [path])`,
		`[/srv/a/x /srv/b/y]`:          `[[path] [path]]`,
		`files /a/b, /c/d`:             `files [path], [path]`,
		`PATH=/usr/local/bin:/opt/bin`: `PATH=[path]:[path]`,
		`open /a/b: no such file`:      `open [path]: no such file`,
	} {
		if got := redact.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}
