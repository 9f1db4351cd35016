package proxy

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpguard/mcpguard/core/validate"
)

// declared is the check of a tool's declared input schema, compiled once
// from the inputSchema its tools/list entry carried, at its first call.
type declared struct {
	schema json.RawMessage
	once   sync.Once
	d      *validate.Declared
}

// checker returns the compiled check, or nil when there is nothing to
// enforce: no schema, or one core/validate does not enforce (it does not
// compile, uses what the library cannot check, or declares nothing), which
// it logs once at the first call: the server's own bad schema never fails
// a call.
func (t *tool) checker(ctx context.Context, o *options) *validate.Declared {
	if t.declared == nil {
		return nil
	}
	t.declared.once.Do(func() {
		t.declared.d = validate.NewDeclared(t.name, t.declared.schema, validate.WithLogger(o.logger))
	})
	d := t.declared.d
	if !d.Enforced() {
		_, _ = d.Check(ctx, nil, nil, nil) // the one warning, for a schema that is not enforced
		return nil
	}
	return d
}

// checkDeclared checks a call's arguments against the tool's declared
// input schema, as both SDK fronts do, before the upstream sees the call.
// A violation is the validation_error, with fields, to answer it with;
// nil lets the call through. A call whose only difference from the schema
// is a lossless string spelling of a number, integer or boolean ("5") is
// let through as the client sent it: the proxy does not rewrite requests.
func (g *Guard) checkDeclared(ctx context.Context, c *call) error {
	if !g.o.declared {
		return nil
	}
	v, ok := g.tools.Load(c.tool)
	if !ok {
		return nil // not listed yet, or unknown: the upstream answers
	}
	d := v.(*tool).checker(ctx, g.o)
	if d == nil {
		return nil
	}
	_, err := d.Check(ctx, c.args, nil, g.o.redactor.ForCall(c.args))
	return err
}

// WithDeclaredSchemas checks each call's arguments against the input
// schema its tool declares in tools/list, before the upstream sees the
// call, and answers a violation with validation_error and fields. It is
// off by default because the proxy cannot tell how lenient a server is
// beyond its schema: one built on mcpguard's validate, for one, takes an
// optional member sent as zero, "" or null as not set, which its derived
// schema (a minimum of 1, say) does not say, and with the check on such
// calls would be refused where the server accepts them.
func WithDeclaredSchemas() Option { return func(o *options) { o.declared = true } }
