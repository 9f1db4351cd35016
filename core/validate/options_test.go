package validate_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// WithEnvelopeOptions are handed to the front, which renders the binder's
// failures with them; the core renders nothing itself.
func TestWithEnvelopeOptionsReachTheFront(t *testing.T) {
	t.Parallel()
	plain := validate.NewBinder[SearchArgs]()
	if plain.EnvelopeOptions() != nil {
		t.Errorf("no options: %v", plain.EnvelopeOptions())
	}
	b := validate.NewBinder[SearchArgs](
		validate.WithEnvelopeOptions(envelope.WithDefaultNextSteps(envelope.ValidationError, "Ask the user for a longer query.")),
		validate.WithEnvelopeOptions(envelope.WithToolFailureMeta()))
	if n := len(b.EnvelopeOptions()); n != 2 {
		t.Fatalf("%d envelope options, want both", n)
	}
	o := callWith(t, b, json.RawMessage(`{"query":"ab"}`), envelope.NewRenderer(b.EnvelopeOptions()...))
	if env := invalid(t, o); !reflect.DeepEqual(env.NextSteps, []string{"Ask the user for a longer query."}) {
		t.Errorf("next steps %q", env.NextSteps)
	}
	// The error itself is the same with or without them.
	_, e1 := plain.Bind(context.Background(), tool, json.RawMessage(`{"query":"ab"}`), nil)
	_, e2 := b.Bind(context.Background(), tool, json.RawMessage(`{"query":"ab"}`), nil)
	if e1.Error() != e2.Error() {
		t.Errorf("%v / %v", e1, e2)
	}
}

// Default is the Validator that RegisterPattern registers on and that
// binders and schemas use without WithValidator.
func TestDefaultValidator(t *testing.T) {
	t.Parallel()
	if expr, ok := validate.Default().Pattern("card_id"); !ok || expr != `^(?:[A-Z]{2}-[0-9]{4})$` {
		t.Errorf("Default().Pattern(card_id) = %q, %v", expr, ok)
	}
	if validate.Default().Engine() == nil || validate.New(nil).Engine() == validate.Default().Engine() {
		t.Error("New(nil) wraps a fresh validator/v10 instance")
	}
	if got, want := string(validate.Schema[SearchArgs](validate.WithValidator(validate.Default()))), string(validate.Schema[SearchArgs]()); got != want {
		t.Errorf("schema with the default validator %s\nwithout options %s", got, want)
	}
	b := validate.NewBinder[SearchArgs]()
	if !strings.Contains(string(b.Schema()), `"pattern":"^(?:[A-Z]{2}-[0-9]{4})$"`) || string(b.Schema()) != string(validate.Schema[SearchArgs]()) {
		t.Errorf("Binder.Schema %s", b.Schema())
	}
	// nil options are skipped.
	if got := string(validate.Schema[SearchArgs](nil, nil)); got != string(validate.Schema[SearchArgs]()) {
		t.Errorf("nil options: %s", got)
	}
}
