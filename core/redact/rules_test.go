package redact_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/redact"
)

const pem = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB
aFDrBz9vFqU4yQjmSWvqM7k0WVLuPfVQSt0gAvFs5UU6nBFz3GLQwKZs7mT1aJtG
-----END RSA PRIVATE KEY-----`

// Each kind of secret loses its secret and keeps the message around it.
func TestSecretShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []ruleCase{
		{"dsn password", `dial postgres://app:hunter2@db:5432/shop failed`, []string{"hunter2"}, []string{"postgres://app:", "@db:5432/shop failed"}},
		{"url basic auth", `GET https://bob:s3cr3t-pw@api.example.com/v1 returned 500`, []string{"s3cr3t-pw"}, []string{"api.example.com/v1 returned 500"}},
		{"mysql dsn", `mysql://root:toor@tcp(127.0.0.1:3306)/app`, []string{"toor"}, nil},
		{"bearer", `upstream said: Authorization: Bearer abcDEF123456789xyz.token-value rejected`, []string{"abcDEF123456789xyz"}, []string{"rejected"}},
		{"jwt", `bad session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`, []string{"eyJzdWIiOiIxMjM0In0", "dozjgNryP4J3"}, []string{"bad session"}},
		{"openai key", `invalid key sk-proj-AbCdEf0123456789GhIjKlMn`, []string{"AbCdEf0123456789"}, []string{"invalid key"}},
		{"anthropic key", `key sk-ant-api03-AbCdEf0123456789GhIjKlMn rejected`, []string{"AbCdEf0123456789"}, nil},
		{"stripe key", `charge failed with sk_live_4eC39HqLyjWDarjtT1zdp7dc`, []string{"4eC39HqLyjWDarjtT1zdp7dc"}, nil},
		{"aws key id", `AccessDenied for AKIAIOSFODNN7EXAMPLE on bucket`, []string{"AKIAIOSFODNN7EXAMPLE"}, []string{"on bucket"}},
		{"github token", `clone with ghp_16C7e42F292c6912E7710c838347Ae178B4a failed`, []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}, nil},
		{"github pat", `github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv`, []string{"abcdefghijklmnop"}, nil},
		{"slack", `xoxb-1234567890-abcdefghij`, []string{"abcdefghij"}, nil},
		{"pem", "key:\n" + pem + "\nend", []string{"MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn", "aFDrBz9vFqU4yQjm"}, []string{"end"}},
		{"password pair", `connect host=db user=app password=hunter2 sslmode=disable`, []string{"hunter2"}, []string{"host=db user=app", "sslmode=disable"}},
		{"token pair", `retry with token=abc123&page=2`, []string{"abc123"}, []string{"page=2"}},
		{"api_key pair", `API_KEY: "qwerty-123"`, []string{"qwerty-123"}, nil},
		{"json secret", `{"user":"bob","password":"hunter2"}`, []string{"hunter2"}, []string{`"user":"bob"`}},
		{"go frame", `failed at /home/dev/shop/internal/db/query.go:42 +0x1d`, []string{"/home/dev", "query.go:42"}, []string{"failed at"}},
		{"relative frame", `failed in db.go:42`, []string{"db.go:42"}, []string{"failed in"}},
		{"unix path", `open /var/lib/shop/secrets.yaml: permission denied`, []string{"/var/lib/shop"}, []string{"open", "permission denied"}},
		{"windows path", `open C:\Users\bob\shop\config.ini: access is denied`, []string{`C:\Users\bob`}, []string{"access is denied"}},
	} {
		tc.check(t)
	}
}

// The shapes a first review found leaking (issue 9): DSNs, key spellings,
// YAML, JSON values of any type, dumps, and paths in every notation.
func TestShapesThatLeakedBefore(t *testing.T) {
	t.Parallel()
	for _, tc := range []ruleCase{
		{"go mysql dsn", `dial root:hunter2@tcp(db:3306)/shop failed`, []string{"hunter2"}, []string{"root:", "@tcp(db:3306)/shop failed"}},
		{"at in password", `postgres://app:p@ss@db:5432/shop down`, []string{"p@ss"}, []string{"db:5432/shop down"}},
		{"slash in password", `postgres://app:pa/ss@db/shop`, []string{"pa/ss"}, nil},
		{"empty user", `redis://:s3cretpw@cache:6379 refused`, []string{"s3cretpw"}, []string{"cache:6379 refused"}},
		{"DB_PASSWORD", `DB_PASSWORD=hunter2 DB_HOST=db`, []string{"hunter2"}, []string{"DB_HOST=db"}},
		{"AWS secret", `AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, []string{"wJalrXUtnFEMI"}, nil},
		{"GITHUB_TOKEN", `GITHUB_TOKEN=abc123def`, []string{"abc123def"}, nil},
		{"camel", `dbPassword=hunter2 clientSecret=shh`, []string{"hunter2", "shh"}, nil},
		{"yaml", "db:\n  db_password: correct horse battery\n  host: db", []string{"correct horse"}, []string{"host: db"}},
		{"json number", `body {"pin_password": 123456}`, []string{"123456"}, nil},
		{"json array", `{"api_keys": ["k-one", "k-two"]}`, []string{"k-one", "k-two"}, nil},
		{"python repr", `{'db_password': 'hunter2', 'user': 'app'}`, []string{"hunter2"}, []string{"'user': 'app'"}},
		{"environ", "PATH=/usr/bin\x00DB_PASSWORD=hunter2\x00HOME=/home/app", []string{"hunter2", "/usr/bin", "/home/app"}, []string{"HOME="}},
		{"C:/", `open C:/Users/bob/config.ini failed`, []string{"Users/bob"}, []string{"failed"}},
		{"UNC", `open \\fileserver\share\bob\x.txt failed`, []string{"fileserver", `bob\x.txt`}, []string{"failed"}},
		{"escaped windows", `{\"path\":\"C:\\\\Users\\\\bob\\\\x\"}`, []string{"Users", "bob"}, nil},
		{"file url", `fetch file:///etc/shop/secret.yaml: denied`, []string{"/etc/shop", "secret.yaml"}, []string{"denied"}},
		{"PATH list", `PATH=/usr/local/bin:/opt/shop/bin`, []string{"/usr/local", "/opt/shop"}, nil},
		{"backticks", "open `/srv/shop/x.db` failed", []string{"/srv/shop"}, []string{"failed"}},
		{"braces", `opts {/srv/shop/x.db}`, []string{"/srv/shop"}, nil},
		{"spaces", `open /home/bob/My Documents/tax.pdf: denied`, []string{"/home/bob", "Documents", "tax.pdf"}, []string{"denied"}},
		{"non-ascii", `open /home/ålice/nötes/x.md: denied`, []string{"ålice", "nötes", "x.md"}, []string{"denied"}},
		{"windows spaces", `C:\Program Files (x86)\Shop\app.exe crashed`, []string{"Program", "Shop", "app.exe"}, []string{"crashed"}},
		{"source position non-ascii", `at /home/ålice/src/db.go:42`, []string{"ålice", "db.go:42"}, nil},
	} {
		tc.check(t)
	}
}

// Ordinary error text reaches the client as it was.
func TestReadableMessagesAreUntouched(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`pq: relation "users" does not exist`,
		`no such table: users`,
		`limit must be at most 50`,
		`card_id must match ^ATC-\d{4}-\d{6,}$`,
		`category "ai/ml" is not one of AI/ML, Data`,
		`see https://docs.example.com/errors/42 for details`,
		`ratio 3/4 exceeded`,
		`value ../../etc/passwd is not a valid card_id`,
	} {
		ruleCase{name: s, in: s}.check(t)
	}
}

// ForSuccess drops the rules a tool's output holds by design (paths, file
// URLs, bare source positions) and keeps every other one, a custom rule
// included unless it is marked KeepInSuccess.
func TestForSuccess(t *testing.T) {
	emp := redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-")
	code := redact.NewRule("internal-code", `\bINT-\d{4}\b`, "INT-[X]", "int-")
	code.KeepInSuccess = true
	r := redact.Default().With(emp, code).ForSuccess()
	in := "/srv/files/a.txt file:///srv/files main.go:12:3 src/main.rs:2:5 INT-1234 EMP-123456 password=hunter2 ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	want := "/srv/files/a.txt file:///srv/files main.go:12:3 src/main.rs:2:5 INT-1234 EMP-[REDACTED] password=[REDACTED] [REDACTED]"
	if got := r.String(in); got != want {
		t.Errorf("ForSuccess().String:\n got %s\nwant %s", got, want)
	}
	if got := redact.Default().String(in); got == in || got == want {
		t.Errorf("the default redactor should still redact paths: %s", got)
	}
	if s := redact.New(emp); s.ForSuccess() != s {
		t.Error("a redactor without such rules is its own ForSuccess")
	}
}
