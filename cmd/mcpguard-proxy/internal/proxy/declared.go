package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	coredeclared "github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

// declared is the check of a tool's declared input schema, compiled once
// from the inputSchema its tools/list entry carried, at its first call.
type declared struct {
	schema   json.RawMessage
	once     sync.Once
	d        *coredeclared.Checker
	required map[string]bool // the schema's top-level required members
}

// checker returns the compiled check, or nil when there is nothing to
// enforce: no schema, or one core/declared does not enforce (it does not
// compile, uses what the library cannot check, or declares nothing), which
// it logs once at the first call: the server's own bad schema never fails
// a call.
func (t *tool) checker(ctx context.Context, o *options) *coredeclared.Checker {
	if t.declared == nil {
		return nil
	}
	t.declared.once.Do(func() {
		t.declared.d = coredeclared.New(t.name, t.declared.schema, coredeclared.WithLogger(o.logger))
		var top struct {
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t.declared.schema, &top)
		t.declared.required = make(map[string]bool, len(top.Required))
		for _, r := range top.Required {
			t.declared.required[r] = true
		}
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
// nil lets the call through. Nothing is refused that a lenient server
// accepts: a call that is valid once its optional members sent as null,
// "", 0, false or empty are left out (how servers on mcpguard's validate,
// and many others, read them, though their schemas do not say so) goes
// through, and so does one whose only difference from the schema is a
// lossless string spelling of a number, integer or boolean ("5").
//
// What the upstream is sent is what was checked, as the fronts hand their
// handlers what they checked: the members the check read as not set are
// left out, a string read as the number it spells is sent as that number
// (c.sent); a call the check passes as written goes as written.
//
// Whatever the tool and its check, arguments that readers would read
// differently (a member sent twice, two names that differ only in case,
// at any depth), which rpc.ReadClient admits in a tools/call's arguments
// only, never pass: the declared check names them (a case variant of a
// declared property as unknown, with the property as the suggestion),
// and ambiguousArguments refuses them where no check runs.
func (g *Guard) checkDeclared(ctx context.Context, c *call) error {
	t, d := g.declaredFor(ctx, c)
	if d == nil {
		return c.ambiguousArguments()
	}
	red := g.o.redactor // Check keeps the values the call sent (ForCall) itself
	converted, err := d.Check(ctx, c.args, nil, red)
	if err == nil {
		c.sent = converted            // nil: as written
		return c.ambiguousArguments() // a fold the check spells otherwise
	}
	if c.ambiguousArguments() != nil {
		return err // it names the members; arguments read two ways are not read as a map below
	}
	c.sent, err = withoutUnsetOptionals(ctx, d, red, c.args, t.declared.required, err)
	return err
}

// declaredFor is the called tool and its declared check, or a nil check
// when there is none to run: the check is off, the tool is not listed
// (yet, or unknown: the upstream answers), or its schema is not enforced.
func (g *Guard) declaredFor(ctx context.Context, c *call) (*tool, *coredeclared.Checker) {
	if g.o.noDeclared {
		return nil, nil
	}
	t := g.toolOf(c)
	if t == nil {
		return nil, nil
	}
	return t, t.checker(ctx, g.o)
}

// withoutUnsetOptionals returns the arguments the upstream is sent when
// the check passes args once the top-level members that are not required
// and hold null, "", 0, false, [] or {} are read as not set: args without
// those of them the check refuses. Each is put back, in the order of
// their names, where the check passes with it, so a member sent as the
// schema allows (false beside a refused null) goes as sent. When the
// check refuses args all the same, err is its violation without them, or
// refused, the violation of args as written, when none is unset.
func withoutUnsetOptionals(ctx context.Context, d *coredeclared.Checker, red *redact.Redactor, args json.RawMessage,
	required map[string]bool, refused error) (sent json.RawMessage, err error) {
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil {
		return nil, refused
	}
	var unsetNames []string
	for k, v := range members {
		if !required[k] && unset(v) {
			unsetNames = append(unsetNames, k)
		}
	}
	if len(unsetNames) == 0 {
		return nil, refused
	}
	slices.Sort(unsetNames)
	kept := maps.Clone(members)
	for _, k := range unsetNames {
		delete(kept, k)
	}
	if sent, err = check(ctx, d, red, kept); err != nil {
		return nil, err
	}
	for _, k := range unsetNames {
		kept[k] = members[k]
		if s, err := check(ctx, d, red, kept); err == nil {
			sent = s
		} else {
			delete(kept, k)
		}
	}
	return sent, nil
}

// check checks the arguments members, returning their text as checked
// (converted where the check converted) or the violation.
func check(ctx context.Context, d *coredeclared.Checker, red *redact.Redactor, members map[string]json.RawMessage) (json.RawMessage, error) {
	b, err := json.Marshal(members)
	if err != nil {
		return nil, envelope.Internal(err)
	}
	converted, err := d.Check(ctx, b, nil, red)
	switch {
	case err != nil:
		return nil, err
	case converted != nil:
		return converted, nil
	}
	return b, nil
}

func unset(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "null", `""`, "0", "false", "[]", "{}":
		return true
	}
	var f float64
	return json.Unmarshal(v, &f) == nil && f == 0
}

// WithoutDeclaredSchemas turns off the check of each call's arguments
// against the input schema its tool declares in tools/list.
func WithoutDeclaredSchemas() Option { return func(o *options) { o.noDeclared = true } }

// ambiguousArguments is ambiguousArguments(c.args), known to be nil when
// the quick reader read the call: it declines arguments readers may read
// differently.
func (c *call) ambiguousArguments() error {
	if c.plainArgs {
		return nil
	}
	return ambiguousArguments(c.args)
}

// ambiguousArguments is the validation_error of arguments whose members
// readers would read differently, named by core/declared, or nil. The
// strict reader decides, as it decides for the rest of the message; a
// name core/declared does not see as ambiguous (a fold the two spell
// differently) is refused all the same, unnamed.
func ambiguousArguments(args json.RawMessage) error {
	if err := rpc.Walk(args, true, nil); err == nil || !rpc.IsAmbiguity(err) {
		return nil
	}
	if err := coredeclared.Members(args); err != nil {
		return err
	}
	return envelope.New(envelope.ValidationError, "the arguments repeat a member, or write its name in another case, which servers read differently: send each member once")
}
