package envelope

import (
	"regexp"

	core "github.com/mcpguard/mcpguard/core/envelope"
)

// mcp-go v1.2.1's CallToolRequest.Require* helpers return these texts
// (mcp/tools.go); TestMCPGoArgumentErrors calls the real functions, so an
// mcp-go upgrade that changes them fails loudly. Recognising them is this
// front's business: core only offers the hook (WithArgumentErrors), and
// the go-sdk front and mcpguard-proxy, whose handlers cannot return them,
// never run the expression.
var argumentErrorText = regexp.MustCompile(`^(?:required argument "([^"]+)" not found|(?:item \d+ in )?argument "([^"]+)" (?:is not an? [a-z0-9 ]+|cannot be converted to [a-z0-9]+))$`)

// mcpGoArgumentError recognises the text of an mcp-go argument error and
// returns the field it names.
func mcpGoArgumentError(text string) (FieldError, bool) {
	m := argumentErrorText.FindStringSubmatch(text)
	if m == nil {
		return FieldError{}, false
	}
	f := FieldError{Field: m[1] + m[2], Rule: "type", Message: m[0]}
	if m[1] != "" {
		f.Rule = "required"
	}
	return f, true
}

// mcpGoArgumentErrors is the option every Renderer of this front starts
// with; the user's options come after it and may replace it.
var mcpGoArgumentErrors = core.WithArgumentErrors(mcpGoArgumentError)
