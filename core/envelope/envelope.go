package envelope

import (
	"encoding/json"
	"strings"
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

// Marshal returns the envelope's JSON text: what a client reads in the text
// content of an error result. next_steps is always an array, never null.
func (e *Envelope) Marshal() []byte {
	if e.NextSteps == nil {
		e.NextSteps = []string{}
	}
	b, err := json.Marshal(e)
	if err != nil {
		e.ErrorType = InternalError
		b, _ = json.Marshal(e)
	}
	return b
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
