package validate

import (
	"context"
	"fmt"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	core "github.com/mcpguard/mcpguard/core/validate"
	"github.com/mcpguard/mcpguard/envelope"
)

// OutputSchema sets a tool's outputSchema to the one derived from Out,
// for use with mcp.NewTool next to [InputSchema] and with
// [StructuredHandler]:
//
//	mcp.NewTool("shop_price", validate.InputSchema[PriceArgs](), validate.OutputSchema[Price]())
//
// It is derived from the same tags as an input schema, read the way
// encoding/json writes a result: a member without omitempty or omitzero
// is always written, so it is required; one that can be written as null
// (a pointer, slice or map without omitempty) says so in its type; the
// validate tags give enum, bounds, lengths and patterns, which
// [StructuredHandler] checks before anything is sent.
//
// Out must be a struct or a pointer to one; it panics otherwise, or on
// tags that cannot work, when the option is built.
func OutputSchema[Out any](opts ...Option) mcp.ToolOption {
	out := core.NewOutput[Out](opts...)
	return func(t *mcp.Tool) {
		t.OutputSchema = mcp.ToolOutputSchema{}
		t.RawOutputSchema = slices.Clone(out.Schema())
	}
}

// StructuredHandler adapts a typed handler with a typed result to mcp-go,
// the counterpart of mcp-go's NewStructuredToolHandler. Its arguments are
// bound and validated as [Handler]'s are (reusing [Args]' value when it
// ran). Its result goes out as structuredContent, matching
// [OutputSchema][Out], with its JSON as the text rendering for clients
// that read only text.
//
// An error from fn is returned as is, so that the envelope layer further
// out sees its sentinels (envelope.ErrNotFound stays not_found), where
// mcp-go's wrapper would flatten it into text. A result that does not
// match the declared output schema (a validate tag it breaks, a nil
// pointer, a value encoding/json cannot write) is never sent: the call
// answers with an internal_error envelope with an incident ID, and the
// detail goes to the envelope options' logger ([WithEnvelopeOptions] with
// envelope.WithLogger), so that a strict client that checks
// structuredContent against outputSchema never receives one that fails.
func StructuredHandler[In, Out any](fn func(ctx context.Context, req mcp.CallToolRequest, args In) (Out, error), opts ...Option) server.ToolHandlerFunc {
	if fn == nil {
		panic("validate: StructuredHandler(nil)")
	}
	b := newBinder[In](opts)
	out := core.NewOutput[Out](opts...)
	return checkedBy(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, ok := ctx.Value(ctxKey[In]{}).(*In)
		if !ok || args == nil {
			var res *mcp.CallToolResult
			if args, res = b.bind(ctx, req); res != nil {
				return res, nil
			}
		}
		v, err := fn(ctx, req, *args)
		if err != nil {
			return nil, err
		}
		text, err := out.Check(ctx, v)
		if err != nil {
			return b.renderer(ctx).Error(ctx, req,
				envelope.Wrap(envelope.InternalError, fmt.Errorf("validate: the result of %s does not match its outputSchema: %w", req.Params.Name, err))), nil
		}
		return mcp.NewToolResultStructured(v, string(text)), nil
	}, b.c)
}
