package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// fuzzArgs is a tool's arguments with every kind of constraint the
// validation layer turns into field errors.
type fuzzArgs struct {
	Query    string       `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string       `json:"category,omitempty" validate:"omitempty,oneof=books garden toys"`
	Limit    int          `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Filters  []fuzzFilter `json:"filters,omitempty" validate:"omitempty,max=5,dive"`
	APIKey   string       `json:"api_key,omitempty" validate:"omitempty,min=40"`
	Extra    any          `json:"extra,omitempty"`
	Price    *float64     `json:"max_price,omitempty" validate:"omitempty,gte=0,lte=1000"`
}

type fuzzFilter struct {
	Field string `json:"field" validate:"required,oneof=name price"`
	Value string `json:"value" validate:"required,max=50"`
}

// fuzzSecret is planted as the api_key, where no answer may show it.
const fuzzSecret = "sk-fuzzC4NARY0123456789abcdefghijkl"

// maxFailureBytes bounds the whole JSON-RPC response to invalid
// arguments, whatever their size: the same bound the mcp-go front's
// validation is held to (validate's FuzzDefaultArgs).
const maxFailureBytes = 24 << 10

// FuzzAddToolArgs sends arbitrary argument JSON from a real go-sdk client
// to a gosdk.AddTool tool behind gosdk.Middleware, and holds every answer
// to the go-sdk front's promises: never a JSON-RPC error for a tool
// failure, every failure a validation_error envelope with fields, at most
// maxFailureBytes on the wire, the planted api_key never on the wire, and
// nothing the leak detector flags unless the arguments hold it.
func FuzzAddToolArgs(f *testing.F) {
	for _, seed := range []string{
		`{"query":"agents"}`, `{"query":"ab","limit":9999,"category":"ai/ml"}`,
		`{"api_key":"` + fuzzSecret + `"}`, `{"api_key":"` + fuzzSecret + `","query":"x"}`,
		`{"query":"password=hunter2hunter2 and /srv/app/main.go:12"}`, `{"/etc/passwd":1}`,
		`{"category":"goroutine 1 [running]: panic: runtime error: x"}`,
		`{"filters":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}`, `{"query":null}`, `{"limit":"5"}`,
		`{"extra":{"a":[{"b":null}]},"max_price":1e308}`, `{}`, `{"Query":"x","qeury":"y"}`,
		`{"filters":[{"field":"colour","value":"` + strings.Repeat("x", 400) + `"}]}`,
	} {
		f.Add([]byte(seed))
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fuzz"}, nil)
	gosdk.AddTool(s, &mcp.Tool{Name: "shop_search"},
		func(context.Context, *mcp.CallToolRequest, fuzzArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	// Each input is a call of its own: the repeated-failure guard would
	// answer a call that failed three times unchanged without running it.
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLogger(slog.New(slog.DiscardHandler)), gosdk.WithRepeats(nil)))
	session := gosdktest.Connect(f, s)
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) || !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
			return // the client sends arguments as a JSON object
		}
		r := session.For(t).Call("shop_search", json.RawMessage(args))
		if r.ProtocolError != nil {
			t.Fatalf("arguments %s: a JSON-RPC error instead of a result: %s", args, r.Raw)
		}
		if r.IsError() && len(r.Raw) > maxFailureBytes {
			t.Fatalf("%d-byte arguments got a %d-byte failure", len(args), len(r.Raw))
		}
		if r.IsError() && (r.Envelope == nil || r.Envelope.ErrorType != gosdk.ValidationError || len(r.Envelope.Fields) == 0) {
			t.Fatalf("arguments %s: a failure that is not a validation_error envelope with fields: %s", args, r.Raw)
		}
		if onlyAsAPIKey(args) && slices.ContainsFunc(gosdktest.Leaks(r.Raw, fuzzSecret), isSecret) {
			t.Fatalf("arguments %s: the api_key reached the wire: %s", args, r.Raw)
		}
		// The answer may echo what the agent sent (a short preview);
		// anything else that looks like a stack, a position, a path or a
		// secret pair came from the server.
		if len(gosdktest.Leaks(args)) == 0 && !namesSecretKey(args) {
			if leaks := gosdktest.Leaks(r.Raw); len(leaks) > 0 {
				t.Fatalf("arguments %s: the answer gives away %v: %s", args, leaks, r.Raw)
			}
		}
	})
}

func isSecret(leak string) bool { return strings.HasPrefix(leak, "a secret") }

// namesSecretKey reports whether args name a secret-like key ("pass",
// "token", …): the echo of such text plus the envelope's punctuation can
// read as a key and its value, which is the agent's own text.
func namesSecretKey(args []byte) bool {
	lower := strings.ToLower(string(args))
	for _, w := range []string{"pass", "pwd", "secret", "token", "key", "auth", "cookie", "session", "credential", "bearer", "pin", "otp", "cvv", "cvc"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// onlyAsAPIKey reports whether args hold fuzzSecret only as the value of
// their top-level api_key member.
func onlyAsAPIKey(args []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	delete(m, "api_key")
	rest, _ := json.Marshal(m)
	return !bytes.Contains(rest, []byte(fuzzSecret)) && !bytes.Contains(rest, []byte("fuzzC4NARY"))
}
