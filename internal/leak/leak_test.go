package leak_test

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/internal/leak"
)

func TestIsSecretKey(t *testing.T) {
	for _, k := range []string{
		"password", "PASSWORD", "db_password", "DB_PASSWORD", "password_confirmation", "newPassword",
		"dbPassword", "AWS_SECRET_ACCESS_KEY", "aws_access_key_id_secret", "GITHUB_TOKEN", "clientSecret",
		"client-secret", "x-api-key", "X-Api-Key", "XApiKey", "APIKey", "api_key", "apikey", "authorization",
		"Authorization", "auth", "access_token", "refresh_token", "id_token", "accessToken", "session_token",
		"session-id", "sessionId", "passwd", "pwd", "DB_PASS", "passphrase", "credentials", "private_key",
		"signingKey", "secret_key_base", "encryption_key", "cookie", "Set-Cookie", "spring.datasource.password",
		"oauth2Token", "password2", "mysql_root_password", "AccountKey", "SharedAccessKey", "bearer", "csrf_token",
		"secrets", "api_keys", "passwords", "password_hash", "pin", "card_cvv", "otp_code",
		"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "X-Goog-Signature", "sig", "Signature", "Key-Pair-Id",
	} {
		assert.True(t, leak.IsSecretKey(k), k)
		assert.True(t, leak.ContainsAny(strings.ToLower(k), leak.PairTriggers), "%s holds no pair trigger", k)
	}
	for _, k := range []string{
		"", "query", "limit", "tokens_used", "max_tokens", "tokens", "keyword", "key", "sort_key", "primary_key",
		"token_count", "token_type", "tokenType", "password_min_length", "secret_name", "auth_type", "auth_method",
		"page_token", "next_page_token", "nextPageToken", "NextToken", "continuation_token", "next_cursor", "author",
		"authority", "passenger", "compass", "token_expires_at", "monkey", "turkey", "idempotency_key", "user_id",
		"password_policy", "secretary", "pinned", "spin", "opinion",
		"se", "sv", "X-Amz-Expires", "X-Amz-Algorithm", "signature_version", "signature_algorithm", "pair_id", "key_id", "signal",
	} {
		assert.False(t, leak.IsSecretKey(k), k)
	}
	// A byte that is not ASCII, valid UTF-8 or not, glued to a key ends a
	// word, as a case change does (a fuzz finding: "\xe3PASS=secret" went
	// out as it was).
	for _, k := range []string{"\xe3PASS", "\xe3password", "éPASSWORD", "PASS\xe3", "Ω_token"} {
		assert.True(t, leak.IsSecretKey(k), "%q", k)
	}
	for _, k := range []string{"café", "naïve_name", "\xe3spin", "Ωcompass"} {
		assert.False(t, leak.IsSecretKey(k), "%q", k)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = leak.IsSecretKey("AWS_SECRET_ACCESS_KEY") }))
}

func TestSecretValues(t *testing.T) {
	t.Parallel()
	apply := func(s string) string {
		vs := leak.SecretValues(s, nil)
		for i := len(vs) - 1; i >= 0; i-- {
			s = s[:vs[i].Start] + vs[i].Replacement + s[vs[i].End:]
		}
		return s
	}
	for in, want := range map[string]string{
		`DB_PASSWORD=hunter2 HOST=db`:                    `DB_PASSWORD=[REDACTED] HOST=db`,
		`dbPassword=hunter2, user=app`:                   `dbPassword=[REDACTED], user=app`,
		"db_password: correct horse\nuser: app":          "db_password: [REDACTED]\nuser: app",
		`{"db_password": 12345, "user": "app"}`:          `{"db_password": "[REDACTED]", "user": "app"}`,
		`{"api_keys": ["a", "b"], "n": 1}`:               `{"api_keys": "[REDACTED]", "n": 1}`,
		`{"password":"a\"b"}`:                            `{"password":"[REDACTED]"}`,
		`{'db_password': 'x y', 'user': 'u'}`:            `{'db_password': '[REDACTED]', 'user': 'u'}`,
		"HOME=/root\x00DB_PASSWORD=p\x00X=1":             "HOME=/root\x00DB_PASSWORD=[REDACTED]\x00X=1",
		`body {\"client_secret\":\"s3\",\"a\":1}`:        `body {\"client_secret\":\"[REDACTED]\",\"a\":1}`,
		`map[password:hunter2 user:bob]`:                 `map[password:[REDACTED] user:bob]`,
		`x-api-key: abc123`:                              `x-api-key: [REDACTED]`,
		`got Authorization: Bearer abc.def for user`:     `got Authorization: Bearer [REDACTED] for user`,
		`?access_token=abc&page=2`:                       `?access_token=[REDACTED]&page=2`,
		`:password => "pw"`:                              `:password => "[REDACTED]"`,
		`password=[REDACTED] token=null ok=true`:         `password=[REDACTED] token=null ok=true`,
		`if token == other`:                              `if token == other`,
		`relation "users" does not exist`:                `relation "users" does not exist`,
		`next_page_token=abc token_count=5`:              `next_page_token=abc token_count=5`,
		`Server=db;User Id=sa;Password=p@ss;Encrypt=1`:   `Server=db;User Id=sa;Password=[REDACTED];Encrypt=1`,
		`"credentials": {"user": "a", "pw": "b"}, "x":1`: `"credentials": "[REDACTED]", "x":1`,
	} {
		assert.Equal(t, want, apply(in), in)
	}
}

func TestFindSeesLeaksButNotPlaceholders(t *testing.T) {
	t.Parallel()
	names := func(text string) []string {
		var out []string
		for _, m := range leak.Find(text) {
			out = append(out, m.Name)
		}
		return out
	}
	assert.Contains(t, names(`dial postgres://app:hunter2@db/x`), "secrets/url-password")
	assert.Empty(t, names(`dial postgres://app:[REDACTED]@db/x`))
	assert.Contains(t, names(`password=hunter2`), leak.PairsName)
	assert.Empty(t, names(`password=[REDACTED] relation "users" does not exist`))
	assert.Contains(t, names(`open /home/alice/x.txt`), "paths/unix")
	assert.Contains(t, names("goroutine 7 [running]:\nmain.f()"), "stack/goroutine-header")
	assert.Empty(t, names(`open [path]: not found; see https://example.com/a/b`))
}

func TestSpecsCompileAndAreNamedByCategory(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^(stack|secrets|paths)/[a-z0-9-]+$`)
	seen := map[string]bool{}
	for _, s := range leak.Specs {
		assert.Regexp(t, valid, s.Name)
		assert.False(t, seen[s.Name], "duplicate %s", s.Name)
		seen[s.Name] = true
		assert.NotEmpty(t, s.What)
		for _, tr := range s.Triggers {
			assert.Equal(t, strings.ToLower(tr), tr, "%s: triggers are compared lower-cased", s.Name)
		}
		if s.Spans == nil && !s.Sent {
			assert.NotNil(t, leak.Compiled(s.Name), s.Name)
		}
	}
}

func TestFindExceptWhatWasSent(t *testing.T) {
	t.Parallel()
	sent := leak.NewSent(json.RawMessage(`{"path":"/home/alice/todo.md","password":"/home/alice/pw"}`))
	assert.Empty(t, leak.FindExcept("open /home/alice/todo.md: not found", sent))
	assert.NotEmpty(t, leak.FindExcept("open /home/alice/pw: not found", sent), "a secret-named argument is not kept")
	assert.NotEmpty(t, leak.FindExcept("open /srv/x/y: not found", sent))
	assert.NotEmpty(t, leak.FindExcept("password=hunter2 at /home/alice/todo.md", sent), "only paths are kept")
	assert.Nil(t, leak.NewSent(nil))
	assert.Nil(t, leak.NewSent(map[string]any{}))
	assert.True(t, leak.NewSent(map[string]any{"n": 1.0}).Keeps("/n"), "a member is kept by its pointer")
	assert.False(t, leak.NewSent(map[string]any{"n": 1.0}).Contains("/n"), "but it is no sent string")
	assert.False(t, (*leak.Sent)(nil).Contains("x"))
	assert.True(t, leak.NewSent(struct{ P string }{"/a/b"}).Contains("/a/b"), "other values go through their JSON encoding")
}

// The detector keeps what the redactor keeps of a call: a sent path as a
// file URL, with either separator, and a pointer to a sent value; and
// flags the rest.
func TestFindExceptTheFormsOfWhatWasSent(t *testing.T) {
	t.Parallel()
	sent := leak.NewSent(json.RawMessage(`{"file":"C:\\src\\app\\main.go","path":"/tmp/x/nope.go","items":[{"name":""}]}`))
	for _, text := range []string{
		"no package for file:///C:/src/app/main.go", "open C:/src/app/main.go: denied", "no package metadata for file file:///tmp/x/nope.go",
		"at '/items/0/name': too short", `validating /properties/entities: type: 1 has type "integer"`,
	} {
		assert.Empty(t, leak.FindExcept(text, sent), text)
	}
	for _, text := range []string{"no package for file:///C:/src/other.go", "open C:/src/other.go: denied", "at '/items/1/name': missing", "open /tmp/x/other.go: x"} {
		assert.NotEmpty(t, leak.FindExcept(text, sent), text)
	}
}

func TestSentIsBounded(t *testing.T) {
	t.Parallel()
	xs := make([]any, 1_000_000)
	for i := range xs {
		xs[i] = "/a/b"
	}
	xs[len(xs)-1] = "/late/path"
	s := leak.NewSent(map[string]any{"xs": xs})
	assert.True(t, s.Contains("/a/b"))
	assert.False(t, s.Contains("/late/path"), "the walk stops at its budget")
}

// A Pre check may only skip an expression that cannot match.
func TestPreNeverHidesAMatch(t *testing.T) {
	t.Parallel()
	alphabet := "aZc:/\\ .-_é\"'(=[{`*\x00\t\n9"
	rng := rand.New(rand.NewPCG(3, 4))
	texts := []string{"C:/x", `a C:\\b`, "/a/b", "x=/a/b", "postgres://u:p@h/db", "e:/x"}
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	const tokenish = "aB3x9Qz-_ ."
	for range 5000 {
		b := make([]byte, 24+rng.IntN(48))
		for i := range b {
			b[i] = tokenish[rng.IntN(len(tokenish))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range leak.Specs {
		if s.Pre == nil {
			continue
		}
		matches := func(text string) bool { return len(s.Spans(text, nil)) > 0 }
		if re := leak.Compiled(s.Name); re != nil {
			matches = re.MatchString
		}
		for _, text := range texts {
			if matches(text) && !s.Pre(text) {
				t.Fatalf("%s: Pre(%q) is false but the expression matches", s.Name, text)
			}
		}
	}
}

// A backslash that starts an escape (a quoted byte \x7f, a JSON or Go
// \u0026, a Go \U0001f600) is neither a UNC path's opening pair nor its
// separator: FuzzDefaultArgs found "\\x7f\u002600", the JSON text of a
// preview quoting "\x7f&00", read as the share u002600 on server x7f.
// Real network paths, plain or JSON-escaped, are still found.
func TestUNCPathsAndEscapes(t *testing.T) {
	t.Parallel()
	unc := func(text string) bool {
		for _, m := range leak.Find(text) {
			if m.Name == "paths/unc" {
				return true
			}
		}
		return false
	}
	for _, s := range []string{
		`open \\fileserver\share\x failed`,
		`open \\fileserver\share failed`,
		`{"path":"\\\\fileserver\\share"}`,
		`{"path":"\\\\fileserver\\share\\x.txt"}`,
		`\\x64build\share`,               // \x64 is "d": no quoter escapes it
		`{"p":"\\\\\u00e9cole\\share"}`,  // JSON of \\école\share, ASCII-only
		`{"p":"\\\\srv\\\u00e9t\u00e9"}`, // JSON of \\srv\été, ASCII-only
		`\\fileserver\share\u0026`,       // an escape after the share is the path's
		`(\\10.0.0.5\c$\Windows)`,
		`\\users\share`, `\\xeon\share`, `\\srv\Users`, `\\srv\u00et`, `\\srv\U0001F60`, // no escape: not enough hex digits
	} {
		assert.True(t, unc(s), "%s is a network path", s)
	}
	for _, s := range []string{
		// The finding, as the envelope's JSON text holds it: the preview
		// quotes \xb6\xff\x7f&00 as \ufffd\ufffd\x7f&00.
		`got \"A` + "\uFFFD\uFFFD" + `\\x7f\u002600\"`,
		`(got "A` + "\uFFFD" + `\\x7f\u002600")`,
		`\\srv\x7fshare`, // a quoted \x7f after one backslash: \srv<DEL>share
		`\\x7f\u002600`,
		`\\x7fA\\x7fB`,
		`\\x7f\share`,
		`\\x1b\share`,
		`\\x80\share`,
		`\\xFF\share`,
		`\\x7F\share`,
		`\\u00e9\share`,
		`\\U0001f600\share`,
		` \\\\B\u0026`, // JSON text of a preview " \\B&"
		`\\srv\u0026`,
		`\\srv\U0001F600`,
	} {
		assert.False(t, unc(s), "%s is no network path", s)
	}
}
