package envelope

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Envelope is the JSON object a client receives, as the text of the first
// content item of a result with isError: true, for every tool failure.
type Envelope struct {
	// Success is always false in an error envelope. It lets an agent that
	// parses every result the same way branch on one member.
	Success bool `json:"success"`
	// ErrorType is one of the seven codes.
	ErrorType Code `json:"error_type"`
	// Tool is the name of the tool that failed.
	Tool string `json:"tool"`
	// Message says what went wrong, readable and redacted. For internal
	// errors it is generic and names the incident.
	Message string `json:"message"`
	// NextSteps tells the agent what to do now: tool-specific steps first,
	// then the code's defaults.
	NextSteps []string `json:"next_steps"`
	// Retryable reports whether the identical call may succeed if repeated.
	Retryable bool `json:"retryable"`
	// IncidentID ties an internal error to the server's log record.
	IncidentID string `json:"incident_id,omitempty"`
	// Fields lists every invalid argument of a validation error.
	Fields []FieldError `json:"fields,omitempty"`
	// RetryAfterMS is how long, in milliseconds, the agent should wait
	// before repeating the call, when the server knows: a rate limit that
	// refused the call says when the next one will be accepted.
	RetryAfterMS int64 `json:"retry_after_ms,omitempty"`

	// carry is what a normalized result keeps of the handler's own.
	carry carried
}

// carried is what an envelope made from a handler's error result keeps of
// that result besides its text: its _meta and its other content items.
type carried struct {
	meta *mcp.Meta
	rest []mcp.Content
}

// FieldError describes one invalid argument, in the terms of the JSON the
// agent sent rather than of Go struct fields.
type FieldError struct {
	// Field is the JSON path of the argument, e.g. "filters[2].name".
	Field string `json:"field"`
	// Rule is the constraint that failed: "required", "max", "oneof",
	// "type", "unknown" and so on.
	Rule string `json:"rule"`
	// Param is the constraint's bound, as the schema states it.
	Param string `json:"param,omitempty"`
	// Allowed lists every allowed value of an enumeration.
	Allowed []string `json:"allowed,omitempty"`
	// Suggestion is the allowed value closest to what was sent.
	Suggestion string `json:"suggestion,omitempty"`
	// Message is a readable sentence, e.g. "limit must be at most 50".
	Message string `json:"message"`
}

// Result renders e as a tool result with isError: true. The envelope is the
// text of the only content item and, unless the tool declares an output
// schema, also the structured content. (Strict clients validate structured
// content against the output schema even on errors, so a tool with one gets
// the text alone.) The tool's definition is looked up through the
// *server.MCPServer in ctx; without one, as in a unit test, the structured
// content is included.
func (e *Envelope) Result(ctx context.Context) *mcp.CallToolResult {
	if e.NextSteps == nil {
		e.NextSteps = []string{}
	}
	b, err := json.Marshal(e)
	if err != nil {
		// Only an invalid code can fail to encode; never send one.
		e.ErrorType = InternalError
		b, _ = json.Marshal(e)
	}
	res := &mcp.CallToolResult{
		Content: append([]mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: string(b)}}, e.carry.rest...),
		IsError: true,
	}
	res.Meta = e.carry.meta
	if !hasOutputSchema(ctx, e.Tool) {
		res.StructuredContent = e
	}
	return res
}

// hasOutputSchema reports whether the named tool, as the client sees it
// (session tools shadow server tools), declares an output schema.
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

// FromResult decodes the envelope of an error result, as a Go client or a
// test receives it. It reports false for a nil result, a successful one, or
// an error result that carries no valid envelope.
func FromResult(res *mcp.CallToolResult) (*Envelope, bool) {
	if res == nil || !res.IsError {
		return nil, false
	}
	if e, ok := res.StructuredContent.(*Envelope); ok && e != nil {
		cp := *e
		cp.carry = carried{}
		cp.NextSteps = append([]string{}, e.NextSteps...)
		return &cp, true
	}
	for _, c := range res.Content {
		text, ok := textOf(c)
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

// Parse decodes an envelope from JSON text. It reports false unless the
// text is an object with success false and a valid error_type.
func Parse(text string) (*Envelope, bool) {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '{' || !strings.Contains(t, `"error_type"`) {
		return nil, false
	}
	var e Envelope
	if err := json.Unmarshal([]byte(t), &e); err != nil || e.Success || !e.ErrorType.Valid() {
		return nil, false
	}
	if e.NextSteps == nil {
		e.NextSteps = []string{}
	}
	return &e, true
}

func textOf(c mcp.Content) (string, bool) {
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
