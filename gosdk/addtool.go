package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"weak"

	"github.com/go-playground/validator/v10"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// AddTool adds a tool with a typed handler to s, as go-sdk's mcp.AddTool
// does, with mcpguard's argument validation in place of go-sdk's:
//
//   - the input schema, unless t has one, is derived from In's json,
//     jsonschema and validate tags: required members, enum, bounds,
//     lengths, patterns, additionalProperties: false. It is the identical
//     JSON the mcp-go front's validate.InputSchema advertises for the same
//     struct, where go-sdk's inference reads only descriptions;
//   - the arguments are bound into In and checked against the same tags
//     before h runs. Invalid arguments are answered with a validation_error
//     envelope listing every violation under "fields", by JSON path, as on
//     mcp-go, never with go-sdk's `validating "arguments": …` text;
//   - an error h returns is rendered as an envelope by the renderer of the
//     [Middleware] serving the call (or a default one), classified by its
//     whole chain, so gosdk.ErrNotFound stays not_found; GetError on the
//     result still returns h's error. A *jsonrpc.Error stays a protocol
//     error, as with mcp.AddTool;
//   - on success, as with mcp.AddTool, Out goes out as structuredContent,
//     and as its JSON text when h set no content. The output schema, unless
//     t has one, is go-sdk's own inference from Out, or the one derived from
//     Out's tags when its validate tags say more than its types (enum,
//     bounds, patterns); then a result that breaks them is never sent, and
//     the call fails with an internal_error envelope instead.
//
// Options configure the validation: [WithValidator] for a validator with
// custom patterns or tags (the same *Validator an mcp-go front's
// validate.WithValidator takes), [WithCoercion] to accept numbers and
// booleans sent as strings.
//
// In must be a struct. AddTool panics, as mcp.AddTool does, when the tool
// or the types cannot work (In not a struct, tags validator/v10 does not
// know), and when t has an InputSchema that disagrees with In (a member In
// requires that the schema does not, one it lists that In lacks, a JSON
// type In refuses; see core/validate's SchemaMismatch): an agent that
// follows tools/list would be refused, and told to re-read the schema that
// misled it. Misconfiguration fails at start-up.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...ToolOption) {
	tt, th, err := toolFor(t, h, opts)
	if err != nil {
		panic(fmt.Sprintf("gosdk.AddTool: tool %q: %v", t.Name, err))
	}
	s.AddTool(tt, th)
}

// boundTools holds the definitions gosdk.AddTool added whose handler binds
// and checks exactly the schema they declare: the Middleware leaves those
// to it. A definition is one registration (go-sdk lists the *Tool it was
// given), so a low-level tool declaring an equal schema is not among them.
// An entry lasts as long as its definition.
var boundTools sync.Map // weak.Pointer[mcp.Tool] -> struct{}

func bindsItself(t *mcp.Tool) bool {
	_, ok := boundTools.Load(weak.Make(t))
	return ok
}

// toolFor returns the tool with its schemas set and the low-level handler
// that binds, validates and renders.
func toolFor[In, Out any](t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts []ToolOption) (*mcp.Tool, mcp.ToolHandler, error) {
	if h == nil {
		return nil, nil, errors.New("nil handler")
	}
	if k := reflect.TypeFor[In]().Kind(); k != reflect.Struct {
		return nil, nil, fmt.Errorf("the arguments type %s is of kind %s, not a struct", reflect.TypeFor[In](), k)
	}
	b := validate.NewBinder[In](opts...)
	tt := *t
	if tt.InputSchema == nil {
		tt.InputSchema = json.RawMessage(b.Schema())
	} else if err := declaredAgrees(tt.InputSchema, b); err != nil {
		return nil, nil, err
	}
	if schema, err := json.Marshal(tt.InputSchema); err == nil && b.Checks(schema) {
		w := weak.Make(&tt)
		boundTools.Store(w, struct{}{})
		runtime.AddCleanup(&tt, func(w weak.Pointer[mcp.Tool]) { boundTools.Delete(w) }, w)
	}
	out, err := outputFor[Out](&tt, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("output schema: %w", err)
	}
	declares := tt.OutputSchema != nil
	// validate.WithEnvelopeOptions add to the Middleware's configuration.
	overlay := core.NewOverlay(b.EnvelopeOptions()...)
	fail := func(ctx context.Context, req *mcp.CallToolRequest, err error) *mcp.CallToolResult {
		return renderErrorOver(ctx, req, err, declares, overlay)
	}
	th := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := b.Bind(ctx, req.Params.Name, req.Params.Arguments, overlay.On(rendererFrom(ctx)).Redactor())
		if err != nil {
			return fail(ctx, req, err), nil
		}
		res, v, err := h(ctx, req, *in)
		if err != nil {
			if wire, ok := err.(*jsonrpc.Error); ok {
				return nil, wire
			}
			return fail(ctx, req, err), nil
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if res.InputRequests != nil {
			return res, nil
		}
		if err := out.set(ctx, res, v); err != nil {
			err = core.Wrap(core.InternalError, fmt.Errorf("gosdk: the result of %s does not match its outputSchema: %w", req.Params.Name, err))
			return fail(ctx, req, err), nil
		}
		return res, nil
	}
	return &tt, th, nil
}

// declaredAgrees reports an explicit input schema that disagrees with In:
// the agent would follow tools/list and be refused by the binding.
func declaredAgrees[In any](schema any, b *validate.Binder[In]) error {
	raw, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("input schema: %w", err)
	}
	if err := b.Mismatch(raw); err != nil {
		return fmt.Errorf("%w (%s); drop the tool's InputSchema to advertise the one derived from %s, or make them agree", err, reflect.TypeFor[In](), reflect.TypeFor[In]())
	}
	return nil
}

// ToolOption configures [AddTool]'s validation. It is core/validate's
// option type, shared with the mcp-go front's validate package.
type ToolOption = validate.Option

// Validator wraps a validator/v10 instance with named patterns; it is the
// type the mcp-go front's validate.Validator names too.
type Validator = validate.Validator

// NewValidator returns a Validator over v (a fresh validator/v10 instance
// when v is nil), for custom tags and [Validator.RegisterPattern].
func NewValidator(v *validator.Validate) *Validator { return validate.New(v) }

// WithValidator validates with v instead of the shared default.
func WithValidator(v *Validator) ToolOption { return validate.WithValidator(v) }

// WithCoercion accepts numbers and booleans sent as JSON strings ("10",
// "true") for members whose type is a number or a boolean.
func WithCoercion() ToolOption { return validate.WithCoercion() }
