package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"strings"
)

// SARIFOptions configures [Report.WriteSARIF].
type SARIFOptions struct {
	// ToolVersion is the auditing tool's version, if known.
	ToolVersion string
	// ArtifactURI, when set, gives every result a physical location as
	// well as its logical one: the file that defines the server's tools,
	// relative to the repository root. GitHub code scanning lists only
	// results that have one.
	ArtifactURI string
}

// sarifSchema is the SARIF 2.1.0 schema's address, as $schema.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifLevel maps a severity to a SARIF result level.
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration map[string]any `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation map[string]string `json:"artifactLocation"`
	Region           map[string]int    `json:"region"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          map[string]any     `json:"properties,omitempty"`
}

// WriteSARIF writes the report as a SARIF 2.1.0 log for code-scanning
// dashboards: one SARIF rule per check (its summary, why it matters and
// its default severity), one result per finding located by tool and JSON
// pointer, ignored findings as suppressed results with their reason, and
// the scores in the run's properties. Server text is escaped as in the
// text report.
func (r *Report) WriteSARIF(w io.Writer, o SARIFOptions) error {
	rules, index := sarifRules()
	results := make([]sarifResult, 0, len(r.Findings)+len(r.Ignored))
	for _, f := range r.Findings {
		results = append(results, sarifResultOf(f, index[f.Check], o))
	}
	for _, ig := range r.Ignored {
		res := sarifResultOf(ig.Finding, index[ig.Check], o)
		res.Suppressions = []sarifSuppression{{Kind: "external", Justification: printable(ig.Reason)}}
		results = append(results, res)
	}
	driver := map[string]any{
		"name":           "mcpguard-audit",
		"informationUri": "https://github.com/mcpguard/mcpguard",
		"rules":          rules,
	}
	if v := strings.TrimPrefix(o.ToolVersion, "v"); v != "" {
		// SARIF wants a plain version ("0.1.0", not Go's "v0.1.0"), and
		// a semantic one where there is one.
		driver["version"] = v
		if semanticVersion.MatchString(v) {
			driver["semanticVersion"] = v
		}
	}
	invocation := map[string]any{"executionSuccessful": r.Incomplete == ""}
	if r.Incomplete != "" {
		invocation["toolExecutionNotifications"] = []any{map[string]any{
			"level": "error", "message": sarifText{Text: printable(r.Incomplete)},
		}}
	}
	props := map[string]any{
		"server":           printable(r.Server),
		"scores":           r.Scores,
		"summary":          r.Summary(),
		"probed":           r.Probed,
		"estimated_tokens": r.EstimatedTokens,
		"tools":            len(r.Tools),
	}
	if len(r.Omitted) > 0 {
		props["omitted"] = r.Omitted
	}
	log := map[string]any{
		"$schema": sarifSchema,
		"version": "2.1.0",
		"runs": []any{map[string]any{
			"tool":        map[string]any{"driver": driver},
			"invocations": []any{invocation},
			"results":     results,
			"properties":  props,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifRules returns one SARIF rule per check, and each check's index.
func sarifRules() ([]sarifRule, map[string]int) {
	rules := make([]sarifRule, 0, len(catalog))
	index := make(map[string]int, len(catalog))
	for i, c := range catalog {
		index[c.ID] = i
		rules = append(rules, sarifRule{
			ID:               c.ID,
			Name:             sarifName(c),
			ShortDescription: sarifText{Text: c.Summary},
			FullDescription:  sarifText{Text: c.Summary + ": " + c.Why + "."},
			Help: sarifText{
				Text:     "Rule " + string(c.Rule) + " (" + c.Rule.Title() + "): " + c.Summary + ". Why it matters: " + c.Why + ".",
				Markdown: "**Rule " + string(c.Rule) + " (" + c.Rule.Title() + ")**: " + c.Summary + ".\n\nWhy it matters: " + c.Why + ".",
			},
			DefaultConfiguration: map[string]any{"level": sarifLevel(c.Severity)},
			Properties:           map[string]any{"rule": string(c.Rule), "tags": []string{"mcp", c.Rule.Title()}},
		})
	}
	return rules, index
}

// semanticVersion matches a semantic version 2.0.0 (without the checks on
// leading zeros), as SARIF's semanticVersion property wants it.
var semanticVersion = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// sarifName is a check's SARIF rule name, distinct from its ID as SARIF
// asks: the rule's title and the check's own name, in PascalCase, e.g.
// "NamespacedNamesSnakeCase" for A.snake_case.
func sarifName(c CheckInfo) string {
	_, check, _ := strings.Cut(c.ID, ".")
	var b strings.Builder
	for _, w := range strings.FieldsFunc(c.Rule.Title()+" "+check, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func sarifResultOf(f Finding, ruleIndex int, o SARIFOptions) sarifResult {
	tool := f.Tool
	name := printable(tool)
	if tool == "" {
		name = "(server)"
	}
	ptr := Pointer(f.Path)
	var msg strings.Builder
	msg.WriteString(printable(f.Message))
	if f.Fix != "" {
		msg.WriteString("\nFix: " + printable(f.Fix))
	}
	for _, d := range f.Diff {
		msg.WriteString("\n  " + printable(d))
	}
	loc := sarifLocation{LogicalLocations: []sarifLogical{{
		Name: name, FullyQualifiedName: name + ptr, Kind: "member",
	}}}
	if o.ArtifactURI != "" {
		loc.PhysicalLocation = &sarifPhysical{
			ArtifactLocation: map[string]string{"uri": o.ArtifactURI},
			Region:           map[string]int{"startLine": 1},
		}
	}
	sum := sha256.Sum256([]byte(f.Check + "\x00" + tool + "\x00" + f.Path))
	props := map[string]any{"tool": printable(tool), "pointer": ptr}
	if f.Fix != "" {
		props["fix"] = printable(f.Fix)
	}
	return sarifResult{
		RuleID:              f.Check,
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(f.Severity),
		Message:             sarifText{Text: msg.String()},
		Locations:           []sarifLocation{loc},
		PartialFingerprints: map[string]string{"mcpguardFinding/v1": hex.EncodeToString(sum[:16])},
		Properties:          props,
	}
}
