package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/internal/leak"
	"github.com/mcpguard/mcpguard/internal/str"
)

// Response is one tools/call response as a client received it.
type Response struct {
	TB testing.TB
	// Tool is the name of the tool called.
	Tool string
	// Raw is the whole JSON-RPC response as sent.
	Raw []byte
	// Protocol is the JSON-RPC error, when the server answered with one.
	Protocol *ProtocolError
	// Envelope is the envelope of an isError result's first text item.
	Envelope *core.Envelope

	result  json.RawMessage
	isError bool
	texts   []string // text items, in order
	first   *string  // the first content item's text, if it is text
	sent    *leak.Sent
}

// ProtocolError is a JSON-RPC error as sent.
type ProtocolError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Decode reads raw, the response to a call of tool whose arguments were
// args (a path they hold is no leak).
func Decode(tb testing.TB, tool string, raw []byte, args any) (*Response, error) {
	r := &Response{TB: tb, Tool: tool, Raw: raw, sent: leak.NewSent(args)}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *ProtocolError  `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("undecodable response %s: %w", raw, err)
	}
	if resp.Error != nil {
		r.Protocol = resp.Error
		return r, nil
	}
	var res struct {
		Content []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, fmt.Errorf("undecodable tool result %s: %w", resp.Result, err)
	}
	r.result, r.isError = resp.Result, res.IsError
	for i, c := range res.Content {
		if c.Type != "text" || c.Text == nil {
			continue
		}
		r.texts = append(r.texts, *c.Text)
		if i == 0 {
			r.first = c.Text
		}
	}
	if r.isError && len(r.texts) > 0 {
		if env, ok := core.Parse(r.texts[0]); ok {
			r.Envelope = env
		}
	}
	return r, nil
}

// IsError reports whether the result has isError: true.
func (r *Response) IsError() bool { return r.Protocol == nil && r.isError }

// Text returns the text content items, joined by newlines.
func (r *Response) Text() string { return strings.Join(r.texts, "\n") }

// StructuredContent returns the result's structuredContent, or nil.
func (r *Response) StructuredContent() json.RawMessage {
	var m struct {
		SC json.RawMessage `json:"structuredContent"`
	}
	if len(r.result) == 0 || json.Unmarshal(r.result, &m) != nil || string(m.SC) == "null" {
		return nil
	}
	return m.SC
}

// Describe returns the response for a failure message, clipped.
func (r *Response) Describe() string {
	const max = 2000
	return str.Clip(string(r.Raw), max, "…")
}

// ExpectSuccess checks that the call succeeded: a result without isError.
func (r *Response) ExpectSuccess() {
	r.TB.Helper()
	switch {
	case r.Protocol != nil:
		r.TB.Errorf("%s: want success, got JSON-RPC error %d %q", r.Tool, r.Protocol.Code, r.Protocol.Message)
	case r.isError:
		r.TB.Errorf("%s: want success, got isError result: %s", r.Tool, r.Describe())
	}
}

// ExpectError checks the whole wire contract of a failure: a result (never
// a JSON-RPC error) with isError: true whose first content item is text
// holding a valid envelope, decoded strictly, with the given error_type,
// naming the tool, with next steps; and whose structuredContent, when
// present, is the same envelope member by member.
func (r *Response) ExpectError(code core.Code) {
	r.TB.Helper()
	switch {
	case r.Protocol != nil:
		r.TB.Errorf("%s: want %s envelope, got JSON-RPC error %d %q", r.Tool, code, r.Protocol.Code, r.Protocol.Message)
		return
	case !r.isError:
		r.TB.Errorf("%s: want %s envelope, got a successful result: %s", r.Tool, code, r.Describe())
		return
	case r.Envelope == nil:
		r.TB.Errorf("%s: want %s envelope, got an isError result without one: %s", r.Tool, code, r.Describe())
		return
	case r.first == nil:
		r.TB.Errorf("%s: the first content item is not the text envelope: %s", r.Tool, r.Describe())
		return
	}
	env, err := DecodeStrict([]byte(*r.first))
	if err != nil {
		r.TB.Errorf("%s: text envelope: %v", r.Tool, err)
		return
	}
	if env.ErrorType != code {
		r.TB.Errorf("%s: error_type = %q, want %q (message %q)", r.Tool, env.ErrorType, code, env.Message)
	}
	if env.Tool != r.Tool {
		r.TB.Errorf("%s: envelope names tool %q", r.Tool, env.Tool)
	}
	if len(env.NextSteps) == 0 {
		r.TB.Errorf("%s: envelope has no next_steps", r.Tool)
	}
	if sc := r.StructuredContent(); sc != nil {
		sEnv, err := DecodeStrict(sc)
		if err != nil {
			r.TB.Errorf("%s: structuredContent: %v", r.Tool, err)
			return
		}
		a, _ := json.Marshal(env)
		b, _ := json.Marshal(sEnv)
		if !bytes.Equal(a, b) {
			r.TB.Errorf("%s: structuredContent differs from the text envelope:\n%s\n%s", r.Tool, b, a)
		}
	}
}

// DecodeStrict decodes an envelope, refusing unknown members, a success
// true, an unknown error_type and a missing next_steps array.
func DecodeStrict(b []byte) (*core.Envelope, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", b, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var e core.Envelope
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s does not decode strictly: %w", b, err)
	}
	switch {
	case e.Success:
		return nil, fmt.Errorf("%s has success true", b)
	case !e.ErrorType.Valid():
		return nil, fmt.Errorf("%s has an invalid error_type", b)
	case raw["next_steps"] == nil || string(raw["next_steps"]) == "null":
		return nil, fmt.Errorf("%s has no next_steps array", b)
	case raw["success"] == nil || raw["retryable"] == nil || raw["message"] == nil:
		return nil, fmt.Errorf("%s lacks a member every envelope carries", b)
	}
	return &e, nil
}

// ExpectProtocolError checks that the server answered with a JSON-RPC
// error of the given code.
func (r *Response) ExpectProtocolError(code int) {
	r.TB.Helper()
	if r.Protocol == nil {
		r.TB.Errorf("%s: want JSON-RPC error %d, got a result: %s", r.Tool, code, r.Describe())
	} else if r.Protocol.Code != int64(code) {
		r.TB.Errorf("%s: JSON-RPC error code = %d, want %d", r.Tool, r.Protocol.Code, code)
	}
}

// ExpectMessage checks that the envelope's message contains substr.
func (r *Response) ExpectMessage(substr string) {
	r.TB.Helper()
	if r.Envelope == nil {
		r.TB.Errorf("%s: want a message containing %q, got no envelope: %s", r.Tool, substr, r.Describe())
	} else if !strings.Contains(r.Envelope.Message, substr) {
		r.TB.Errorf("%s: message %q does not contain %q", r.Tool, r.Envelope.Message, substr)
	}
}

// ExpectNextStep checks that a next step contains substr: in the
// envelope's next_steps on an error, in the result's text on a success,
// where success hints appear.
func (r *Response) ExpectNextStep(substr string) {
	r.TB.Helper()
	if r.Envelope != nil {
		for _, s := range r.Envelope.NextSteps {
			if strings.Contains(s, substr) {
				return
			}
		}
		r.TB.Errorf("%s: no next step contains %q; next_steps = %q", r.Tool, substr, r.Envelope.NextSteps)
		return
	}
	if r.Protocol == nil && !r.isError && strings.Contains(r.Text(), substr) {
		return
	}
	r.TB.Errorf("%s: no next step contains %q: %s", r.Tool, substr, r.Describe())
}

// ExpectField checks that the envelope lists field with the given rule
// among its field errors. An empty rule matches any rule.
func (r *Response) ExpectField(field, rule string) {
	r.TB.Helper()
	if fe := r.Field(field); fe == nil {
		var got []string
		if r.Envelope != nil {
			for _, f := range r.Envelope.Fields {
				got = append(got, f.Field+":"+f.Rule)
			}
		}
		r.TB.Errorf("%s: no field error for %q; fields = %q", r.Tool, field, got)
	} else if rule != "" && fe.Rule != rule {
		r.TB.Errorf("%s: field %q failed rule %q, want %q", r.Tool, field, fe.Rule, rule)
	}
}

// Field returns the envelope's field error for field, or nil.
func (r *Response) Field(field string) *core.FieldError {
	if r.Envelope == nil {
		return nil
	}
	for i := range r.Envelope.Fields {
		if r.Envelope.Fields[i].Field == field {
			return &r.Envelope.Fields[i]
		}
	}
	return nil
}

// NoLeak checks that the raw response leaks nothing; see [Leaks]. A path
// the call's own arguments hold is no leak.
func (r *Response) NoLeak(secrets ...string) {
	r.TB.Helper()
	for _, l := range leaks(r.Raw, r.sent, secrets) {
		r.TB.Errorf("%s: response leaks %s: %s", r.Tool, l, r.Describe())
	}
}
