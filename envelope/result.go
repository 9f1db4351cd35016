package envelope

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/pipeline"
)

// result renders env as an mcp-go result with isError: true, in the shape
// core/pipeline's BuildError gives. The envelope
// is the text of the first content item and, unless the tool declares an
// output schema, also the structured content. (Strict clients validate
// structured content against the output schema even on errors.) A result
// normalized from the handler's own keeps that result's _meta and its
// content items other than text, after the envelope, but for a
// toolFailure _meta, which is only ever this layer's. A handoff renderer's
// result carries the *Envelope in structuredContent for the envelope layer
// outside to finish.
func (r *Renderer) result(ctx context.Context, env *Envelope, from *mcp.CallToolResult) *mcp.CallToolResult {
	in := pipeline.ErrorInput{Envelope: env, Renderer: r.c, DeclaresOutput: !r.handoff && hasOutputSchema(ctx, env.Tool)}
	if from != nil && from.Meta != nil {
		in.Meta = from.Meta.AdditionalFields
	}
	shape := pipeline.BuildError(in)
	res := &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: shape.Text}},
		IsError: true,
	}
	if from != nil {
		_, rest := splitText(from.Content)
		res.Content = append(res.Content, rest...)
	}
	if shape.Structured != nil {
		res.StructuredContent = shape.Structured
	}
	if from != nil && from.Meta != nil {
		res.Meta = &mcp.Meta{ProgressToken: from.Meta.ProgressToken, AdditionalFields: shape.Meta}
	} else if shape.Meta != nil {
		res.Meta = &mcp.Meta{AdditionalFields: shape.Meta}
	}
	return res
}

// keepLayerFailure keeps the toolFailure _meta that a layer inside this
// chain rendered with its own options ([Renderer.With]) on out, the
// envelope layer's finish of that layer's result, unless out has its own.
// Only a layer of this process hands an *Envelope over in
// structuredContent; a relayed result's _meta is JSON and is dropped.
func keepLayerFailure(out, from *mcp.CallToolResult) *mcp.CallToolResult {
	failure, ok := failureOf(from.Meta)
	if !ok {
		return out
	}
	if _, own := failureOf(out.Meta); own {
		return out
	}
	out.Meta = withFailureMeta(out.Meta, failure)
	return out
}

// failureOf returns the toolFailure _meta in meta, if any.
func failureOf(meta *mcp.Meta) (map[string]any, bool) {
	if meta == nil {
		return nil, false
	}
	failure, ok := meta.AdditionalFields[ToolFailureMetaKey].(map[string]any)
	return failure, ok
}

// withoutForgedFailure returns res without a toolFailure _meta of the
// handler's own, as a copy; res itself, without allocating, when it has
// none. The agent must not read a relayed upstream's agentGuidance,
// retryable and correlationId beside this server's envelope (or beside a
// success): the envelope layer drops it from every result and adds its
// own only WithToolFailureMeta.
func withoutForgedFailure(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil || res.Meta == nil {
		return res
	}
	fields, dropped := core.DropFailureMeta(res.Meta.AdditionalFields)
	if !dropped {
		return res
	}
	cp := *res
	cp.Meta = &mcp.Meta{ProgressToken: res.Meta.ProgressToken, AdditionalFields: fields}
	return &cp
}

// withFailureMeta returns a copy of meta with failure under
// ToolFailureMetaKey; the handler's meta is never modified.
func withFailureMeta(meta *mcp.Meta, failure map[string]any) *mcp.Meta {
	out := &mcp.Meta{}
	if meta != nil {
		out.ProgressToken = meta.ProgressToken
		out.AdditionalFields = make(map[string]any, len(meta.AdditionalFields)+1)
		for k, v := range meta.AdditionalFields {
			out.AdditionalFields[k] = v
		}
	} else {
		out.AdditionalFields = make(map[string]any, 1)
	}
	out.AdditionalFields[ToolFailureMetaKey] = failure
	return out
}

// splitText joins the text items of content, with core/pipeline's
// joiner, and returns the rest.
func splitText(content []mcp.Content) (string, []mcp.Content) {
	var rest []mcp.Content
	for _, c := range content {
		if _, ok := TextOf(c); !ok {
			rest = append(rest, c)
		}
	}
	return pipeline.JoinText(content, TextOf), rest
}

// TextOf returns the text of a text content item, by value or pointer,
// and false for any other item: mcp-go's reading of a result's text, for
// core/pipeline.JoinText and core/otel.
func TextOf(c mcp.Content) (string, bool) {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text, true
	case *mcp.TextContent:
		if v != nil {
			return v.Text, true
		}
	}
	return "", false
}

// hasOutputSchema reports whether the tool named name, as the server in
// ctx (or the session's own tools) defines it, declares an output schema.
func hasOutputSchema(ctx context.Context, name string) bool {
	if session := server.ClientSessionFromContext(ctx); session != nil {
		if st, ok := session.(server.SessionWithTools); ok {
			if tool, ok := st.GetSessionTools()[name]; ok {
				return declaresOutput(tool.Tool)
			}
		}
	}
	if s := server.ServerFromContext(ctx); s != nil {
		if tool := s.GetTool(name); tool != nil {
			return declaresOutput(tool.Tool)
		}
	}
	return false
}

func declaresOutput(t mcp.Tool) bool {
	return t.OutputSchema.Type != "" || len(t.RawOutputSchema) > 0
}

// FromResult returns the envelope of an error result: its structured
// content when that is one, else its first text item parsed.
func FromResult(res *mcp.CallToolResult) (*Envelope, bool) {
	if res == nil || !res.IsError {
		return nil, false
	}
	if e, ok := res.StructuredContent.(*Envelope); ok && e != nil {
		cp := *e
		cp.NextSteps = append([]string{}, e.NextSteps...)
		return &cp, true
	}
	for _, c := range res.Content {
		text, ok := TextOf(c)
		if !ok {
			continue
		}
		if e, ok := Parse(text); ok {
			return e, true
		}
		break
	}
	return nil, false
}

// RPCCodeOf is the code of the JSON-RPC error mcp-go answers a call with
// when its handler returns err (server/handler_errors.go): -32042 for a
// URL elicitation before MCP 2026-07-28, -32603 for anything else.
func RPCCodeOf(ctx context.Context, err error) int {
	if _, ok := protocolError(ctx, err); ok {
		return mcp.URL_ELICITATION_REQUIRED
	}
	return mcp.INTERNAL_ERROR
}

// protocolError reports whether err must stay a JSON-RPC error, and the
// error to return: a URL elicitation request (mcp.URLElicitationRequiredError)
// on a protocol version that answers it with -32042. The bare value is
// returned, not the wrapper around it, so the JSON-RPC message is the
// elicitation's own fixed text and never the handler's wrapping text.
func protocolError(ctx context.Context, err error) (error, bool) {
	var found error
	if v, ok := As[mcp.URLElicitationRequiredError](err); ok {
		found = v
	} else if p, ok := As[*mcp.URLElicitationRequiredError](err); ok && p != nil {
		found = *p
	}
	if found == nil || mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		return nil, false
	}
	return found, true
}
