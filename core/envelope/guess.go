package envelope

import (
	"encoding/json"
	"regexp"
	"strings"
)

// bindPrefix starts the error result of mcp-go v1.2.1's typed handler
// wrappers (mcp.NewTypedToolHandler, mcp.NewStructuredToolHandler) when
// the arguments do not decode into the handler's struct.
const bindPrefix = "failed to bind arguments: "

// bindField reads the argument an encoding/json type error names: "json:
// cannot unmarshal string into Go struct field args.limit of type int".
var bindField = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field [^\s.]+\.(\S+) of type (\S+)`)

// bindFields returns the field error a typed handler's bind error names.
func bindFields(msg string) []FieldError {
	m := bindField.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	return []FieldError{{Field: m[2], Rule: "type", Param: m[3],
		Message: m[2] + " must be of type " + m[3] + ", not " + m[1]}}
}

// aliases maps error codes other servers and frameworks use (gRPC, HTTP,
// the seed articles' INVALID_ARGUMENT) onto the taxonomy, so a handler that
// already returns a coded JSON error keeps its meaning.
var aliases = map[string]Code{
	"invalid_argument":      ValidationError,
	"invalid_arguments":     ValidationError,
	"invalid_params":        ValidationError,
	"bad_request":           ValidationError,
	"validation":            ValidationError,
	"validation_failed":     ValidationError,
	"unauthenticated":       AuthenticationFailed,
	"unauthorized":          AuthenticationFailed,
	"authentication_error":  AuthenticationFailed,
	"permission_denied":     AccessDenied,
	"forbidden":             AccessDenied,
	"access_forbidden":      AccessDenied,
	"notfound":              NotFound,
	"unknown_tool":          NotFound,
	"failed_precondition":   ExecutionFailed,
	"execution_error":       ExecutionFailed,
	"deadline_exceeded":     ExecutionFailed,
	"unavailable":           ExecutionFailed,
	"internal":              InternalError,
	"unknown":               InternalError,
	"misconfigured":         ConfigurationError,
	"configuration":         ConfigurationError,
	"config_error":          ConfigurationError,
	"configuration_invalid": ConfigurationError,
}

func codeFromString(s string) (Code, bool) {
	k := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return '_'
	}, strings.TrimSpace(s))
	if c := Code(k); c.Valid() {
		return c, true
	}
	c, ok := aliases[k]
	return c, ok
}

// guess reads the text of an error result that a handler built itself. A
// JSON object with a recognisable code ("error_type", "error", "code") and
// "message" keeps both; anything else is an execution failure whose message
// is the text, and known is false: what the text says is for
// [ClassifyText] to read.
func guess(text string) (code Code, msg string, known bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, bindPrefix) {
		return ValidationError, t, true
	}
	if strings.HasPrefix(t, "{") {
		var m map[string]any
		if json.Unmarshal([]byte(t), &m) == nil {
			msg, _ := m["message"].(string)
			for _, key := range []string{"error_type", "error", "code"} {
				if s, ok := m[key].(string); ok {
					if c, ok := codeFromString(s); ok {
						if msg == "" {
							msg = t
						}
						return c, msg, true
					}
				}
			}
		}
	}
	return ExecutionFailed, t, false
}
