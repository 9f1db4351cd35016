package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/validate"
)

// output puts AddTool's typed results in go-sdk results, as mcp.AddTool
// does, holding them to the advertised output schema.
type output[Out any] struct {
	// core checks results when Out's validate tags say more than its
	// types: the advertised schema is the one derived from them.
	core *validate.Output[Out]
	// resolved is otherwise the schema, go-sdk's or the tool's own, that
	// results are checked against, as mcp.AddTool checks them; nil when the
	// tool declares no output schema.
	resolved *jsonschema.Resolved
	// elem is Out's element type when Out is a pointer whose schema was
	// derived here: a nil result goes out as the element's zero value, as
	// with mcp.AddTool, never as null.
	elem reflect.Type
}

// outputFor sets t's output schema, unless it has one, and returns how
// results are checked against it.
func outputFor[Out any](t *mcp.Tool, opts []ToolOption) (*output[Out], error) {
	o := &output[Out]{}
	rt := reflect.TypeFor[Out]()
	if t.OutputSchema != nil {
		s := new(jsonschema.Schema)
		if err := remarshal(t.OutputSchema, s); err != nil {
			return nil, err
		}
		return o, o.resolve(s)
	}
	if rt == reflect.TypeFor[any]() {
		return o, nil
	}
	if rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
		o.elem = rt
	}
	if rt.Kind() == reflect.Struct {
		if c := validate.NewOutput[Out](opts...); c.Constrained() {
			o.core = c
			t.OutputSchema = json.RawMessage(validate.OutputSchemaOf[Out](opts...))
			return o, nil
		}
	}
	s, err := jsonschema.ForType(rt, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	t.OutputSchema = s
	return o, o.resolve(s)
}

func (o *output[Out]) resolve(s *jsonschema.Schema) (err error) {
	o.resolved, err = s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	return err
}

func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// set puts v in res as structuredContent, and as its JSON text when res
// has no content (or alongside, when v is not an object), as mcp.AddTool
// does. An error says v does not match the output schema and must not be
// sent.
func (o *output[Out]) set(ctx context.Context, res *mcp.CallToolResult, v Out) error {
	var outval any = v
	if o.elem != nil && reflect.ValueOf(&v).Elem().IsNil() {
		zero := reflect.New(o.elem)
		if o.core != nil {
			v = zero.Interface().(Out)
		}
		outval = zero.Elem().Interface()
	}
	var raw []byte
	var err error
	switch {
	case o.core != nil:
		raw, err = o.core.Check(ctx, v)
	case outval == nil:
		return nil
	default:
		raw, err = json.Marshal(outval)
		if err == nil && o.resolved != nil {
			raw, err = o.applySchema(raw)
		}
	}
	if err != nil {
		return err
	}
	res.StructuredContent = json.RawMessage(raw)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(raw)}}
	} else if !isObject(raw) {
		res.Content = append(res.Content, &mcp.TextContent{Text: string(raw)})
	}
	return nil
}

// applySchema checks a result's JSON against the resolved schema after
// applying its defaults, as go-sdk checks mcp.AddTool's results.
func (o *output[Out]) applySchema(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	defaults := false
	if _, ok := v.(map[string]any); ok {
		defaults = true
	} else if v == nil && o.resolved.Schema().Type == "object" {
		v, defaults = map[string]any{}, true
	}
	if defaults {
		if err := o.resolved.ApplyDefaults(&v); err != nil {
			return nil, fmt.Errorf("applying schema defaults: %w", err)
		}
	}
	if err := o.resolved.Validate(&v); err != nil {
		return nil, err
	}
	if !defaults {
		return raw, nil
	}
	return json.Marshal(v)
}

// isObject reports whether raw is a JSON object.
func isObject(raw []byte) bool {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return b == '{'
	}
	return false
}
