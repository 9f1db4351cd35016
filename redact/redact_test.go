package redact_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

const pem = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB
aFDrBz9vFqU4yQjmSWvqM7k0WVLuPfVQSt0gAvFs5UU6nBFz3GLQwKZs7mT1aJtG
-----END RSA PRIVATE KEY-----`

func TestEachSecretKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		secret   []string
		keep     []string
	}{
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := redact.String(tc.in)
			for _, s := range tc.secret {
				assert.NotContains(t, out, s)
			}
			for _, k := range tc.keep {
				assert.Contains(t, out, k, "redaction must keep the message readable")
			}
			assert.Equal(t, out, redact.String(out), "redaction is idempotent")
		})
	}
}

func TestStackTracesAndGoroutineDumps(t *testing.T) {
	t.Parallel()
	stack := string(debug.Stack())
	out := redact.String("panic: boom\n\n" + stack)
	assert.NotContains(t, out, ".go:")
	assert.NotContains(t, out, "goroutine ")
	assert.NotContains(t, out, "runtime/debug")
	assert.Contains(t, out, "panic: boom")

	headerless := "query failed\nmain.handler(0x1, 0x2)\n\t/src/app/main.go:12 +0x1d\ncreated by main.main in goroutine 1\n\t/src/app/main.go:30 +0x55\n"
	out = redact.String(headerless)
	assert.NotContains(t, out, "main.go")
	assert.NotContains(t, out, "/src/app")
	assert.Contains(t, out, "query failed")
}

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
		assert.Equal(t, s, redact.String(s))
	}
}

func TestUntriggeredTextDoesNotAllocate(t *testing.T) {
	s := "relation users does not exist"
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = redact.String(s) }))
}

func TestJSONStaysJSON(t *testing.T) {
	t.Parallel()
	in := `{"b":1.50,"a":"dial postgres://u:pw@h/db","nested":[{"token":"abc","n":null,"ok":true}],"path":"/etc/shop/x.conf"}`
	out, ok := redact.Default().JSON(in)
	require.True(t, ok)
	assert.True(t, json.Valid([]byte(out)), out)
	assert.NotContains(t, out, ":pw@")
	assert.NotContains(t, out, `"abc"`)
	assert.NotContains(t, out, "/etc/shop")
	assert.True(t, strings.HasPrefix(out, `{"b":1.50,"a":`), "key order and number text are kept: %s", out)

	for _, notJSON := range []string{"plain", `{"unterminated":`, `{"a":1} trailing`, `"just a string"`} {
		_, ok := redact.Default().JSON(notJSON)
		assert.False(t, ok, notJSON)
	}
	deep := strings.Repeat("[", 10000) + `"password=hunter2"` + strings.Repeat("]", 10000)
	_, ok = redact.Default().JSON(deep)
	assert.False(t, ok, "deep nesting is not rewritten structurally")
	assert.NotContains(t, redact.Default().Text(deep), "hunter2", "it falls back to plain-text redaction")
}

func TestRulesAreExtensible(t *testing.T) {
	t.Parallel()
	r := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
	assert.Equal(t, "employee EMP-[REDACTED] not found", r.String("employee EMP-123456 not found"))
	assert.Equal(t, "x", redact.New().String("x"))
	assert.Panics(t, func() { redact.NewRule("bad", `(`, "") }, "a broken rule fails at start-up")
	assert.Len(t, r.Rules(), len(redact.DefaultRules())+1)
}

func TestMiddlewareRedactsErrorResultsOnTheWire(t *testing.T) {
	t.Parallel()
	shared := mcp.NewToolResultError(`{"success":false,"error_type":"execution_failed","tool":"shop_tool","message":"dial postgres://u:hunter2@h/db","next_steps":["read /srv/app/README.md"],"retryable":false}`)
	before, _ := json.Marshal(shared)
	srv := middlewaretest.New(t, mcp.NewTool("shop_tool"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return shared, nil }, redact.Middleware())
	srv.Call(nil).NoLeak("hunter2", "/srv/app").ExpectError(envelope.ExecutionFailed) // an envelope stays an envelope
	after, _ := json.Marshal(shared)
	assert.JSONEq(t, string(before), string(after), "the handler's result is never modified in place")
}

func TestMiddlewareStructuredContentAndResources(t *testing.T) {
	t.Parallel()
	res := &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: "token=abc123"},
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///log", Text: "password=hunter2"}),
			mcp.NewImageContent("aGk=", "image/png"),
		},
		StructuredContent: map[string]any{"dsn": "mysql://root:toor@h/db"},
	}
	out := redact.Result(redact.Default(), res)
	b, _ := json.Marshal(out)
	assert.NotContains(t, string(b), "abc123")
	assert.NotContains(t, string(b), "hunter2")
	assert.NotContains(t, string(b), "toor")
	assert.Contains(t, string(b), "aGk=")
	orig, _ := json.Marshal(res)
	assert.Contains(t, string(orig), "hunter2", "the original is untouched")
}

func TestSuccessResultsAreLeftAloneByDefault(t *testing.T) {
	ok := mcp.NewToolResultText("your new key: sk-proj-AbCdEf0123456789GhIjKlMn")
	next := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return ok, nil }
	h := redact.Middleware()(next)
	got, _ := h(context.Background(), mcp.CallToolRequest{})
	assert.Same(t, ok, got)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = h(context.Background(), mcp.CallToolRequest{}) }))

	got, _ = redact.Middleware(redact.WithSuccessResults())(next)(context.Background(), mcp.CallToolRequest{})
	assert.NotContains(t, got.Content[0].(mcp.TextContent).Text, "AbCdEf0123456789")

	wantErr := errors.New("x")
	_, err := redact.Middleware()(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, wantErr })(context.Background(), mcp.CallToolRequest{})
	assert.Same(t, wantErr, err)
}

func TestIsSecretKey(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"password", "API_KEY", "apiKey", "token", "client_secret", "session-token"} {
		assert.True(t, redact.IsSecretKey(k), k)
	}
	for _, k := range []string{"query", "limit", "tokens_used", "keyword"} {
		assert.False(t, redact.IsSecretKey(k), k)
	}
}
