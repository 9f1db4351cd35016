package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/mcpguard/mcpguard/internal/leak"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

// FuzzArgs feeds arbitrary bytes as a call's arguments, in process (where
// even malformed JSON can arrive) and through HandleMessage. Whatever the
// input: there is always a result, never a JSON-RPC error or a Go error,
// and an error result carries a valid validation_error envelope.
func FuzzArgs(f *testing.F) {
	for _, seed := range []string{
		`{"query":"agents"}`, `{"query":"ab","limit":9999,"category":"ai/ml"}`, `{"card_id":"../../etc/passwd"}`,
		`[]`, `null`, `"x"`, `{"query":`, `{"Query":"x"}`, `{"filters":[{"name":7},{"op":"like"}]}`,
		`{"extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
		`{"limit":1e999999999}`, `{"limit":5.0,"max_price":null}`, `{"quer\u0079":"x"}`, `{"query":"a\ud800b"}`,
	} {
		f.Add([]byte(seed))
	}
	h := validate.Handler(func(ctx context.Context, req mcp.CallToolRequest, a SearchArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, validate.WithMaxDepth(16), validate.WithMaxBytes(1<<16))
	s := searchServer(f, validate.WithMaxDepth(16), validate.WithMaxBytes(1<<16))
	f.Fuzz(func(t *testing.T, args []byte) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "shop_search"
		req.Params.Arguments = json.RawMessage(args)
		res, err := h(context.Background(), req)
		if err != nil || res == nil {
			t.Fatalf("Handler(%q) = %v, %v", args, res, err)
		}
		if res.IsError {
			env, ok := envelope.FromResult(res)
			if !ok || env.ErrorType != envelope.ValidationError || len(env.Fields) == 0 {
				t.Fatalf("Handler(%q): bad envelope %+v", args, res)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Fatalf("Handler(%q): result does not marshal: %v", args, err)
			}
		}
		// Through the wire, when the whole message is still JSON.
		if !json.Valid(args) {
			return
		}
		r := callRaw(t, s, "shop_search", string(args))
		if r.rpcErr {
			// mcp-go refuses some arguments before any tool layer runs
			// (e.g. a number that overflows float64); that is its
			// parse error, not ours.
			return
		}
		if r.isErr && (r.env == nil || r.env.ErrorType != envelope.ValidationError) {
			t.Fatalf("wire(%q): %s", args, r.raw)
		}
	})
}

// The secret the fuzzer plants as the value of the secret-named api_key
// member, where no preview may ever show it.
const fuzzSecret = "sk-fuzzC4NARY0123456789abcdefghijkl"

// FuzzDefaultArgs drives middleware.Default() plus Args with arbitrary
// argument JSON through HandleMessage and holds every response to the
// documented bounds: at most maxFailureBytes on the wire, an isError
// validation_error envelope for every failure, nothing that
// middlewaretest.Leaks flags (stacks, positions, paths) unless the
// arguments themselves hold it, and the planted secret never on the wire
// while the arguments hold it only as api_key.
func FuzzDefaultArgs(f *testing.F) {
	for _, seed := range []string{
		`{"query":"agents"}`, `{"query":"ab","limit":9999,"category":"ai/ml"}`, `{"card_id":"../../etc/passwd"}`,
		`{"api_key":"` + fuzzSecret + `"}`, `{"api_key":"` + fuzzSecret + `","query":"x"}`,
		`{"query":"password=hunter2hunter2 and /srv/app/main.go:12"}`, `{"/etc/passwd":1}`,
		`{"category":"/srv/app/main.go:12 password=hunter2"}`, `{"card_id":"goroutine 1 [running]: panic: runtime error: x"}`,
		`{"category":"C:\\Users\\me\\secret.txt"}`,
		`{"filters":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}`, `{"query":null}`, `{"limit":"5"}`,
		`{"extra":{"a":[{"b":null}]},"max_price":1e308}`, `[]`, `null`, `{"Query":"x","qeury":"y"}`,
	} {
		f.Add([]byte(seed))
	}
	s := newServer(f)
	// Each input is a call of its own: the repeated-failure guard, which
	// answers a call that failed three times unchanged without running
	// it, would answer for the handler the fuzzer varies.
	s.Use(middleware.Default(middleware.WithLogger(slog.New(slog.DiscardHandler)), middleware.WithRepeats(nil))...)
	s.AddTool(mcp.NewTool("shop_search", validate.InputSchema[SearchArgs]()),
		middleware.Wrap(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		}, validate.Args[SearchArgs]()))
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) {
			return // not a JSON-RPC message at all
		}
		r := callRaw(t, s, "shop_search", string(args))
		if r.rpcErr {
			return // refused by mcp-go's own parsing, before any layer
		}
		if len(r.raw) > maxFailureBytes {
			t.Fatalf("%d-byte arguments got a %d-byte response", len(args), len(r.raw))
		}
		if r.isErr && (r.env == nil || r.env.ErrorType != envelope.ValidationError || len(r.env.Fields) == 0) {
			t.Fatalf("a failure that is not a validation_error envelope: %s", r.raw)
		}
		if onlyAsAPIKey(args) {
			if leaks := middlewaretest.Leaks([]byte(r.raw), fuzzSecret); slices.ContainsFunc(leaks, isSecret) {
				t.Fatalf("arguments %s: the api_key reached the wire: %s", args, r.raw)
			}
		}
		// A short preview may echo what the agent itself sent; anything
		// else that looks like a stack, a position or a path came from
		// the server. An agent's text naming a secret-like key
		// ("pass…=") makes the echo plus the envelope's own punctuation
		// read as a key and its value, so such arguments are left out.
		if !echoLeaks(args) && !namesSecretKey(args) {
			if leaks := middlewaretest.Leaks([]byte(r.raw)); len(leaks) > 0 {
				t.Fatalf("arguments %s: the response gives away %v: %s", args, leaks, r.raw)
			}
		}
	})
}

// echoLeaks reports whether the agent's own arguments look like a leak at
// one of the escaping levels the response carries them in: as sent, in a
// JSON string (the structured envelope), and in a JSON string inside one
// (the text item). "\b\b", two backspaces, is a Windows network path
// once escaped twice.
func echoLeaks(args []byte) bool {
	text := args
	for range 3 {
		if len(middlewaretest.Leaks(text)) > 0 {
			return true
		}
		text, _ = json.Marshal(string(text))
	}
	return false
}

func isSecret(leak string) bool { return strings.HasPrefix(leak, "a secret") }

// namesSecretKey reports whether args hold one of the fixed strings every
// secret-named key contains (internal/leak's pair triggers).
func namesSecretKey(args []byte) bool {
	return leak.ContainsAny(strings.ToLower(string(args)), leak.PairTriggers)
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
