package audit

import (
	"fmt"
	"strings"
)

// Rule groups checks. A to F are scored agent-readiness rules; baseline
// and list are gates without a score.
type Rule string

// The rules: the four of the design article (A to D), two the MCP
// specification implies (E, F), and two about the tool list as a whole.
const (
	// RuleNames (A): namespaced, spec-valid, snake_case, unique tool names.
	RuleNames Rule = "A"
	// RuleDescriptions (B): intent-oriented descriptions that say when to
	// use the tool and what comes next.
	RuleDescriptions Rule = "B"
	// RuleSchemas (C): strict input schemas: concrete types, enums, patterns,
	// bounds, lengths, closed objects.
	RuleSchemas Rule = "C"
	// RuleErrors (D): invalid calls answered with a structured isError
	// envelope that leaks nothing. Checked only by the opt-in probe.
	RuleErrors Rule = "D"
	// RuleAnnotations (E): tool annotations present and consistent with
	// what the name and description say the tool does.
	RuleAnnotations Rule = "E"
	// RulePoisoning (F): no instructions aimed at the model hidden in
	// descriptions or schemas (tool poisoning).
	RulePoisoning Rule = "F"
	// RuleBaseline: the tool definitions match a pinned baseline. Checked
	// only against a [Baseline] ([WithBaseline], --check-baseline).
	RuleBaseline Rule = "baseline"
	// RuleList: tools/list as a whole: stable between two calls within a
	// run, in a deterministic order, and small enough for a model's
	// context.
	RuleList Rule = "list"
)

// Rules returns the scored rules in order, A to F.
func Rules() []Rule {
	return []Rule{RuleNames, RuleDescriptions, RuleSchemas, RuleErrors, RuleAnnotations, RulePoisoning}
}

// AllRules returns every rule: the scored ones, then baseline and list.
func AllRules() []Rule { return append(Rules(), RuleBaseline, RuleList) }

// Title returns the rule's short name, e.g. "namespaced names".
func (r Rule) Title() string {
	switch r {
	case RuleNames:
		return "namespaced names"
	case RuleDescriptions:
		return "intent-oriented descriptions"
	case RuleSchemas:
		return "strict schemas"
	case RuleErrors:
		return "structured error envelopes"
	case RuleAnnotations:
		return "consistent annotations"
	case RulePoisoning:
		return "no tool poisoning"
	case RuleBaseline:
		return "pinned definitions"
	case RuleList:
		return "stable, bounded tools/list"
	}
	return "unknown rule"
}

// Severity ranks a finding. Errors break agents; warnings make them guess;
// infos are advice that does not count against the score.
type Severity int

// The severities, lowest first, so that s >= threshold selects what fails.
const (
	// Info is advice. It never lowers a score.
	Info Severity = iota + 1
	// Warning is a weakness an agent can work around by guessing.
	Warning
	// Error is a defect that makes agents fail or misbehave.
	Error
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText implements [encoding.TextMarshaler].
func (s Severity) MarshalText() ([]byte, error) {
	if s < Info || s > Error {
		return nil, fmt.Errorf("audit: invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler].
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "error", "warning" or "info", case-insensitively.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("audit: unknown severity %q (want error, warning or info)", s)
}

// Finding is one shortcoming of one tool (or of the server as a whole when
// Tool is empty).
type Finding struct {
	// Rule is the rule the finding belongs to.
	Rule Rule `json:"rule"`
	// Check names the check within the rule, e.g. "C.enum". It is stable,
	// so CI scripts and tests can match on it.
	Check string `json:"check"`
	// Severity ranks the finding.
	Severity Severity `json:"severity"`
	// Tool is the tool's name.
	Tool string `json:"tool,omitempty"`
	// Path is the JSON path, within the tool's definition, of what the
	// finding is about, e.g. "inputSchema.properties.limit".
	Path string `json:"path,omitempty"`
	// Message says what is wrong and why it hurts an agent.
	Message string `json:"message"`
	// Fix says concretely what to change.
	Fix string `json:"fix,omitempty"`
	// Diff lists, for a changed definition, each JSON pointer that
	// changed with its old and new value, one per line.
	Diff []string `json:"diff,omitempty"`
}

// String renders the finding on one line.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", f.Severity, f.Check)
	if f.Tool != "" {
		fmt.Fprintf(&b, " %s", f.Tool)
	}
	if f.Path != "" {
		fmt.Fprintf(&b, " %s", f.Path)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	return b.String()
}

// Check identifiers. Each documented finding has one.
const (
	CheckName            = "A.name"             // name violates the MCP spec's characters or length
	CheckNamespace       = "A.namespace"        // name lacks the server's shared namespace prefix
	CheckSnakeCase       = "A.snake_case"       // name is not snake_case
	CheckDuplicate       = "A.duplicate"        // two tools share a name
	CheckDescMissing     = "B.missing"          // no description
	CheckDescShort       = "B.short"            // description trivially short
	CheckDescLong        = "B.long"             // description unbounded
	CheckDescWhen        = "B.when"             // no trigger or precondition
	CheckDescNext        = "B.next"             // no successor named
	CheckDescUnknownTool = "B.unknown_tool"     // names a tool the server lacks
	CheckRootType        = "C.root_type"        // input schema is not type: object
	CheckType            = "C.type"             // a property has no concrete type
	CheckEnum            = "C.enum"             // a categorical string has no enum
	CheckPattern         = "C.pattern"          // an ID-like string has no pattern
	CheckBounds          = "C.bounds"           // a number lacks minimum or maximum
	CheckMaxLength       = "C.max_length"       // a free string lacks maxLength
	CheckMaxItems        = "C.max_items"        // an array lacks maxItems
	CheckAdditional      = "C.additional"       // an object is open
	CheckNotProbeable    = "D.not_probeable"    // no invalid call exists; not called
	CheckJSONRPC         = "D.jsonrpc_error"    // answered with a JSON-RPC error
	CheckNoAnswer        = "D.no_answer"        // transport failed or timed out
	CheckAccepted        = "D.accepted_invalid" // answered success to invalid arguments
	CheckEnvelope        = "D.envelope"         // isError result without an envelope
	CheckNextSteps       = "D.next_steps"       // envelope without next_steps
	CheckErrorType       = "D.error_type"       // internal_error for invalid arguments
	CheckLeak            = "D.leak"             // stack trace, path or panic value leaked
	CheckJSONRPCCode     = "D.jsonrpc_code"     // a tool failure answered with code 0 or a reserved code
	CheckStructuredError = "D.structured_error" // isError structuredContent that breaks the outputSchema
	CheckNetworkRef      = "C.network_ref"      // a $ref a client would have to fetch
	CheckTooComplex      = "C.too_complex"      // a schema past the audit's depth or node bound

	CheckAnnotationsMissing = "E.missing"     // no annotations at all
	CheckReadOnlyHint       = "E.read_only"   // a read tool without readOnlyHint: true
	CheckDestructiveHint    = "E.destructive" // a deleting tool that claims to be read-only or harmless

	CheckInstructions  = "F.instructions"   // text that instructs the model rather than informs it
	CheckImportantTag  = "F.important"      // <IMPORTANT>-style blocks aimed at the model
	CheckHiddenUnicode = "F.hidden_unicode" // invisible Unicode: tag characters, zero-width, bidi controls

	CheckBaselineAdded   = "baseline.added"   // a tool the baseline does not have
	CheckBaselineRemoved = "baseline.removed" // a baseline tool the server no longer lists
	CheckBaselineChanged = "baseline.changed" // a tool whose definition differs from the baseline

	CheckListChanged = "list.changed" // definitions differ between two tools/list calls in one run
	CheckListOrder   = "list.order"   // two tools/list calls list the tools in different orders
	CheckListTokens  = "list.tokens"  // tools/list is larger than the token budget
)
