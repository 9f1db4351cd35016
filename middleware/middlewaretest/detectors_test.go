package middlewaretest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// Each detector of Leaks gets an input that it alone catches, so switching
// any one of them off fails this test: the body reaches the wire from a
// plain mcp-go server, which redacts nothing.
func TestEachLeakDetectorCatchesWhatOnlyItCatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		detector string
		body     string
		secret   string
		want     string // in the one finding's description
	}{
		{"goroutine dump", "worker goroutine 7 [select] stalled", "", "goroutine"},
		{"source position", "failed in handler.go:17", "", "position"},
		{"Go panic", "panic: boom", "", "panic"},
		{"runtime error", "runtime error: index out of range", "", "runtime error"},
		{"Unix path", "open /var/lib/app/data: denied", "", "path"},
		{"Windows path", `open C:\Users\dev\notes.txt: denied`, "", "Windows"},
		// The wire escapes the quote and the backslash: only the search
		// for the JSON-escaped form finds this secret.
		{"secret, JSON-escaped", `login with s3"cr\et failed`, `s3"cr\et`, "secret"},
	}
	for _, c := range cases {
		t.Run(c.detector, func(t *testing.T) {
			t.Parallel()
			r := middlewaretest.New(t, tool, text(c.body)).Call(nil).ExpectSuccess()
			var secrets []string
			if c.secret != "" {
				secrets = append(secrets, c.secret)
			}
			found := middlewaretest.Leaks(r.Raw, secrets...)
			if len(found) != 1 || !strings.Contains(strings.ToLower(found[0]), strings.ToLower(c.want)) {
				t.Fatalf("Leaks(%s) = %q, want one finding naming %q", r.Raw, found, c.want)
			}
			rec := &recorder{TB: t}
			middlewaretest.New(rec, tool, text(c.body)).Call(nil).NoLeak(secrets...)
			if got := rec.joined(); strings.Count(got, "leaks") != 1 {
				t.Fatalf("NoLeak reported %q, want one leak", got)
			}
		})
	}
}

// A client that is not Go's encoding/json writes <, > and & as they are,
// where Go writes \u003c: only the search for the secret as given finds it
// in such bytes.
func TestLeaksFindsASecretSentUnescaped(t *testing.T) {
	t.Parallel()
	const secret = "p<w>d&1"
	raw := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the password is p<w>d&1"}]}}`)
	found := middlewaretest.Leaks(raw, secret)
	if len(found) != 1 || !strings.Contains(found[0], "secret") {
		t.Fatalf("Leaks = %q, want the secret and nothing else", found)
	}
	if got := middlewaretest.Leaks(raw, "other"); got != nil {
		t.Fatalf("Leaks with a secret that is not there = %q", got)
	}
}

// A failed expectation quotes the response, cut, so a huge one does not
// flood the test log.
func TestFailureMessagesQuoteAtMostABoundedResponse(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	middlewaretest.New(rec, tool, text(strings.Repeat("x", 100_000))).Call(nil).ExpectError("not_found")
	got := rec.joined()
	if !strings.Contains(got, "got a successful result") || !strings.HasSuffix(got, "…") || len(got) > 2200 {
		t.Fatalf("failure message of %d bytes: %.300q", len(got), got)
	}
}

// A failure names a leaked secret without repeating it: its first and last
// two characters for a long one, only stars for a short one.
func TestNoLeakMasksTheSecretItReports(t *testing.T) {
	t.Parallel()
	for secret, shown := range map[string]string{"hunter2": "hu***r2", "abcd": "****"} {
		rec := &recorder{TB: t}
		middlewaretest.New(rec, tool, text("the secret is "+secret)).Call(nil).NoLeak(secret)
		got := rec.joined()
		if !strings.Contains(got, "a secret ("+shown+")") || strings.Count(got, secret) != 1 {
			// The one occurrence is the quoted response itself.
			t.Fatalf("NoLeak(%q) reported %q", secret, got)
		}
	}
}

// ExpectField's failure lists the fields the envelope has, and reports a
// result without an envelope instead of panicking.
func TestExpectFieldFailureListsTheFields(t *testing.T) {
	t.Parallel()
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.AddFields(envelope.New(envelope.ValidationError, "bad"), envelope.FieldError{Field: "limit", Rule: "max"})
	}
	rec := &recorder{TB: t}
	middlewaretest.New(rec, tool, h, middleware.Default()...).Call(nil).ExpectField("category", "")
	middlewaretest.New(rec, tool, text("fine")).Call(nil).ExpectField("limit", "")
	got := rec.joined()
	if !strings.Contains(got, `fields = ["limit:max"]`) || !strings.Contains(got, `no field error for "limit"; fields = []`) {
		t.Fatalf("ExpectField reported %q", got)
	}
}
