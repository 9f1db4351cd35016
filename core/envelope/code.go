package envelope

import "fmt"

// Code is one of the seven error types an agent can branch on. The set is
// closed: there are no user-defined codes, so an agent that handles these
// seven handles every mcpguard server.
type Code string

// The seven error types. Their string values are the wire values of the
// envelope's "error_type" member.
const (
	// AuthenticationFailed: the caller's credentials or session are missing,
	// invalid or expired. The agent should re-authenticate.
	AuthenticationFailed Code = "authentication_failed"
	// AccessDenied: the caller is known but lacks permission. Retrying does
	// not help; a human has to grant access.
	AccessDenied Code = "access_denied"
	// NotFound: the resource the arguments name does not exist.
	NotFound Code = "not_found"
	// ConfigurationError: the server is missing settings or is misconfigured.
	// Only the operator can fix it.
	ConfigurationError Code = "configuration_error"
	// ValidationError: an argument is malformed, out of range or missing.
	ValidationError Code = "validation_error"
	// ExecutionFailed: the tool ran and its work failed, such as a SQL error
	// or an upstream timeout.
	ExecutionFailed Code = "execution_failed"
	// InternalError: an unexpected failure, such as a panic or an error no
	// mapping knows. Its details are logged server-side under an incident ID.
	InternalError Code = "internal_error"
)

var allCodes = [...]Code{
	AuthenticationFailed, AccessDenied, NotFound, ConfigurationError,
	ValidationError, ExecutionFailed, InternalError,
}

// Codes returns the seven codes in a stable order.
func Codes() []Code {
	out := make([]Code, len(allCodes))
	copy(out, allCodes[:])
	return out
}

// String returns the code's wire value.
func (c Code) String() string { return string(c) }

// Valid reports whether c is one of the seven codes.
func (c Code) Valid() bool {
	switch c {
	case AuthenticationFailed, AccessDenied, NotFound, ConfigurationError,
		ValidationError, ExecutionFailed, InternalError:
		return true
	}
	return false
}

// MarshalText implements [encoding.TextMarshaler]. It refuses a code outside
// the taxonomy, so an invalid code never reaches the wire.
func (c Code) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("envelope: invalid code %q", string(c))
	}
	return []byte(c), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler]. It accepts only the
// seven codes.
func (c *Code) UnmarshalText(b []byte) error {
	v := Code(b)
	if !v.Valid() {
		return fmt.Errorf("envelope: unknown error_type %q", string(b))
	}
	*c = v
	return nil
}

// Retryable reports the code's default for the envelope's "retryable"
// member: whether the identical call may succeed if made again. Only
// internal errors are retryable by default; a timeout is made retryable by
// the middleware, and any error can override the default with
// [SetRetryable].
func (c Code) Retryable() bool { return c == InternalError }

// DefaultNextSteps returns the generic next step for a code, naming what the
// agent should do. Tool-specific hints come first in an envelope; these are
// the fallback every envelope carries unless a tool replaces them.
// The returned slice is a fresh copy.
func DefaultNextSteps(c Code) []string {
	s, ok := defaultSteps[c]
	if !ok {
		s = defaultSteps[InternalError]
	}
	return append([]string(nil), s...)
}

var defaultSteps = map[Code][]string{
	ValidationError:      {"Re-read this tool's inputSchema from tools/list and call it again with corrected arguments."},
	NotFound:             {"Verify the identifier with the tool that lists or searches these resources, then retry with an identifier it returned."},
	AuthenticationFailed: {"Re-authenticate to obtain a fresh session or credentials, then retry the call."},
	AccessDenied:         {"Do not retry: ask the user to grant access to this resource or to choose another one."},
	ConfigurationError:   {"Report this to the server's operator: the server is misconfigured and retrying will not help."},
	ExecutionFailed:      {"Read the message, adjust the input accordingly, and retry."},
	InternalError:        {"Retry the call once; if it fails again, report the incident_id to the server's operator."},
}
