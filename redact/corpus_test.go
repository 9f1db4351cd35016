package redact_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/leak/leakcorpus"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redact"
)

// TestCorpus sends the shared corpus through every way an mcp-go server
// delivers error text; the core's own tests hold redact.String, Text,
// Value and Handler to the same table.
func TestCorpus(t *testing.T) {
	t.Parallel()
	shapes := leakcorpus.Shapes()
	paths := map[string]func(t *testing.T, text string) []byte{
		"Default()+envelope.New": viaDefault(func(text string) (*mcp.CallToolResult, error) {
			return nil, envelope.New(envelope.ExecutionFailed, text)
		}),
		"Default()+NewToolResultError":       viaDefault(func(text string) (*mcp.CallToolResult, error) { return mcp.NewToolResultError(text), nil }),
		"Middleware, every result position":  viaPositions,
		"Default()+wrapped error (internal)": viaDefault(func(text string) (*mcp.CallToolResult, error) { return nil, errors.New(text) }),
	}
	for name, deliver := range paths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			leaked := 0
			for _, sh := range shapes {
				out := deliver(t, sh.Text)
				var found []string
				for _, s := range sh.Secrets {
					if bytes.Contains(out, []byte(s)) || len(middlewaretest.Leaks(out, s)) > 0 && containsAnyForm(out, s) {
						found = append(found, s)
					}
				}
				if len(found) > 0 {
					leaked++
					t.Errorf("%s shape leaked %q: %q -> %s", sh.Category, found, sh.Text, out)
				}
			}
			t.Logf("%s: %d shapes, %d leaked", name, len(shapes), leaked)
		})
	}
}

// containsAnyForm reports whether secret is in out in some JSON-escaped
// form; middlewaretest.Leaks also reports patterns, which are not what the
// table asserts per shape.
func containsAnyForm(out []byte, secret string) bool {
	for _, l := range middlewaretest.Leaks(out, secret) {
		if strings.HasPrefix(l, "a secret (") {
			return true
		}
	}
	return false
}

type failing func(text string) (*mcp.CallToolResult, error)

func viaDefault(fail failing) func(t *testing.T, text string) []byte {
	return func(t *testing.T, text string) []byte {
		h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return fail(text) }
		return callRaw(t, h, middleware.Default(middleware.WithLogger(slog.New(slog.DiscardHandler)))...)
	}
}

func viaPositions(t *testing.T, text string) []byte {
	meta := &mcp.Meta{AdditionalFields: map[string]any{"detail": text}}
	raw, _ := json.Marshal(map[string]any{"detail": text})
	res := &mcp.CallToolResult{
		Result: mcp.Result{Meta: meta},
		Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: text, Meta: meta},
			&mcp.TextContent{Type: "text", Text: text},
			mcp.ResourceLink{Type: "resource_link", URI: "mem://x", Name: text, Title: text, Description: text},
			mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "mem://y", Text: text, Meta: map[string]any{"d": text}}),
			&mcp.EmbeddedResource{Type: "resource", Resource: &mcp.TextResourceContents{URI: "mem://z", Text: text}},
		},
		StructuredContent:    map[string]any{"detail": text},
		RawStructuredContent: raw,
		IsError:              true,
	}
	out := callRaw(t, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }, redact.Middleware())
	// RawStructuredContent wins on the wire; check StructuredContent alone too.
	res2 := *res
	res2.RawStructuredContent = nil
	out2 := callRaw(t, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return &res2, nil }, redact.Middleware())
	return append(append(out, '\n'), out2...)
}

func callRaw(t *testing.T, h server.ToolHandlerFunc, layers ...server.ToolHandlerMiddleware) []byte {
	return middlewaretest.New(t, mcp.NewTool("corpus_tool"), h, layers...).Call(nil).Raw
}

// The harness flags every shape of the corpus in a response that was not
// redacted, and none once Middleware redacted it: middlewaretest.Leaks
// and the redactor read the same list of leak kinds.
func TestHarnessFlagsWhatTheRedactorRemoves(t *testing.T) {
	t.Parallel()
	for _, sh := range leakcorpus.Shapes() {
		h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(sh.Text), nil
		}
		if leaks := middlewaretest.Leaks(callRaw(t, h)); len(leaks) == 0 {
			t.Errorf("%s: the harness misses %q", sh.Category, sh.Text)
		}
		r := middlewaretest.New(t, mcp.NewTool("corpus_tool"), h, redact.Middleware()).Call(nil)
		if holdsDetectOnly(sh.Text) {
			// "panic: boom" stays readable and is still flagged: only
			// the secrets are checked.
			for _, s := range sh.Secrets {
				assert.False(t, containsAnyForm(r.Raw, s), "%s leaked %q", sh.Category, s)
			}
			continue
		}
		r.NoLeak(sh.Secrets...)
	}
}

// holdsDetectOnly reports whether text holds a kind the harness flags and
// the redactor keeps readable by design.
func holdsDetectOnly(text string) bool {
	for _, m := range leak.Find(text) {
		for _, s := range leak.Specs {
			if s.Name == m.Name && s.DetectOnly {
				return true
			}
		}
	}
	return false
}
