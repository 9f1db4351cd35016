package redact_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/mcpguard/mcpguard/core/redact"
)

func ExampleString() {
	fmt.Println(redact.String(`dial postgres://app:hunter2@db:5432/shop: relation "users" does not exist`))
	fmt.Println(redact.String(`upstream rejected Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl`))
	fmt.Println(redact.String(`open /srv/shop/config.yaml: permission denied`))
	// Output:
	// dial postgres://app:[REDACTED]@db:5432/shop: relation "users" does not exist
	// upstream rejected Authorization: Bearer [REDACTED]
	// open [path]: permission denied
}

func ExampleRedactor_With() {
	r := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
	fmt.Println(r.String("no record for EMP-004211"))
	// Output: no record for EMP-[REDACTED]
}

func ExampleIsSecretKey() {
	for _, k := range []string{"db_password", "clientSecret", "AWS_SECRET_ACCESS_KEY", "x-api-key", "token_count", "next_page_token"} {
		fmt.Println(k, redact.IsSecretKey(k))
	}
	// Output:
	// db_password true
	// clientSecret true
	// AWS_SECRET_ACCESS_KEY true
	// x-api-key true
	// token_count false
	// next_page_token false
}

func ExampleRedactor_ForCall() {
	args := json.RawMessage(`{"path":"/home/alice/notes/todo.md","token":"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}`)
	r := redact.Default().ForCall(args)
	fmt.Println(r.String("open /home/alice/notes/todo.md: not found"))
	fmt.Println(r.String("open /srv/shop/cache/todo.md: not found"))
	fmt.Println(r.String("token ghp_16C7e42F292c6912E7710c838347Ae178B4a rejected"))
	// Output:
	// open /home/alice/notes/todo.md: not found
	// open [path]: not found
	// token [REDACTED] rejected
}

// A value the call sent under a secret-named key is redacted wherever it
// comes back, however plain it looks (redact.SentSecretsRule).
func ExampleRedactor_ForCall_sentSecrets() {
	args := json.RawMessage(`{"user":"bob","password":"correct horse","pin":739151}`)
	r := redact.Default().ForCall(args)
	fmt.Println(r.String("login failed for bob with password correct horse"))
	fmt.Println(r.String("pin 739151 expired"))
	// Output:
	// login failed for bob with password [REDACTED]
	// pin [REDACTED] expired
}

func ExampleRedactor_Without() {
	r := redact.Default().Without("paths")
	fmt.Println(r.String("open /srv/shop/x.db as DB_PASSWORD=hunter2"))
	// Output: open /srv/shop/x.db as DB_PASSWORD=[REDACTED]
}

func ExampleHandler() {
	// A shipped log redacts; a local one (slog.NewJSONHandler(os.Stderr, nil)
	// alone) would keep full detail under the same incident ID.
	shipped := slog.New(redact.Handler(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a stable example
			}
			return a
		},
	})))
	shipped.Error("dial postgres://app:hunter2@db/shop failed",
		"incident_id", "inc_1", "dbPassword", 1234, "err", errors.New("open /srv/shop/tls.key: denied"))
	// Output:
	// {"level":"ERROR","msg":"dial postgres://app:[REDACTED]@db/shop failed","incident_id":"inc_1","dbPassword":"[REDACTED]","err":"open [path]: denied"}
}

func ExampleWithRules() {
	// A Handler (or an SDK front's middleware) built with the same options
	// applies the defaults and then the rules added.
	employee := redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-")
	logger := slog.New(redact.Handler(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a stable example
			}
			return a
		},
	}), redact.WithRules(employee)))
	logger.Warn("no record for EMP-004211", "dsn", "postgres://app:hunter2@db/hr")
	// Output:
	// level=WARN msg="no record for EMP-[REDACTED]" dsn=postgres://app:[REDACTED]@db/hr
}

func ExampleRedactor_Text() {
	fmt.Println(redact.Default().Text(`{"error":"open /srv/shop/x.db: denied","password":"hunter2","n":1.50}`))
	// Output: {"error":"open [path]: denied","password":"[REDACTED]","n":1.50}
}

// A file server's roots are public to the agent: paths under them stay
// readable, the server's other paths do not.
func ExampleRedactor_KeepPathsUnder() {
	r := redact.Default().KeepPathsUnder("/srv/files")
	fmt.Println(r.String("stat /srv/files/nope.txt: no such file or directory"))
	fmt.Println(r.String("open /var/lib/app/state.json: permission denied"))
	// Output:
	// stat /srv/files/nope.txt: no such file or directory
	// open [path]: permission denied
}

// A Go error's text, for a client that reads it as a JSON-RPC error's
// message, with the chain kept for errors.Is.
func ExampleRedactor_Error() {
	base := errors.New("dial postgres://app:hunter2@db/shop: connection refused")
	err := redact.Default().Error(fmt.Errorf("loading orders: %w", base))
	fmt.Println(err)
	fmt.Println(errors.Is(err, base))
	// Output:
	// loading orders: dial postgres://app:[REDACTED]@db/shop: connection refused
	// true
}
