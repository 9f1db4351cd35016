package redact

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Middleware redacts what a client sees of the results of the layers inside
// it: every text content item, embedded text resource and the structured
// content of error results (and of every result with
// [WithSuccessResults]). JSON text is redacted string by string, so an
// envelope stays a valid envelope.
//
// Results are never modified in place: a handler may return a shared value.
// An error returned by the inner layers passes through unchanged; place the
// envelope layer inside this one so that errors become results first.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	o := evaluate(opts)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if res == nil || (!res.IsError && !o.successes) {
				return res, err
			}
			return o.redactor.Result(res), err
		}
	}
}

// Result returns a copy of res with its client-visible text redacted, or res
// itself when nothing needed redaction.
func (r *Redactor) Result(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	var content []mcp.Content
	for i, c := range res.Content {
		red, changed := r.content(c)
		if !changed {
			continue
		}
		if content == nil {
			content = make([]mcp.Content, len(res.Content))
			copy(content, res.Content)
		}
		content[i] = red
	}
	structured, sChanged := r.structured(res.StructuredContent)
	if content == nil && !sChanged {
		return res
	}
	out := *res
	if content != nil {
		out.Content = content
	}
	if sChanged {
		out.StructuredContent = structured
		out.RawStructuredContent = nil
	}
	return &out
}

func (r *Redactor) content(c mcp.Content) (mcp.Content, bool) {
	switch v := c.(type) {
	case mcp.TextContent:
		if t := r.Text(v.Text); t != v.Text {
			v.Text = t
			return v, true
		}
	case *mcp.TextContent:
		if v == nil {
			return c, false
		}
		if t := r.Text(v.Text); t != v.Text {
			cp := *v
			cp.Text = t
			return cp, true
		}
	case mcp.EmbeddedResource:
		if tr, ok := v.Resource.(mcp.TextResourceContents); ok {
			if t := r.Text(tr.Text); t != tr.Text {
				tr.Text = t
				v.Resource = tr
				return v, true
			}
		}
	}
	return c, false
}

func (r *Redactor) structured(v any) (any, bool) {
	if v == nil {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		// What cannot be encoded cannot be sent either; mcp-go reports it.
		return v, false
	}
	out, ok := r.JSON(string(b))
	if !ok || out == string(b) {
		return v, false
	}
	return json.RawMessage(out), true
}
