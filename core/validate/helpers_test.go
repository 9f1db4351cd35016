package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// The core binds and validates; each SDK front renders the error Bind
// returns with its envelope renderer and sends env.Marshal() as the text
// of an isError result. These tests render with the core's default
// renderer, as the fronts do without options of their own, and assert on
// that text decoded as a client decodes it: every check is a check of
// what an agent reads, whichever SDK serves it.

func init() {
	// One definition, shared by the schema's pattern and the runtime check.
	validate.RegisterPattern("card_id", `[A-Z]{2}-[0-9]{4}`)
}

type Filter struct {
	Name string `json:"name" validate:"required,alpha"`
	Op   string `json:"op,omitempty" validate:"omitempty,oneof=eq ne lt gt"`
}

type SearchArgs struct {
	Query    string   `json:"query" jsonschema:"What to search for" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data 'Web/API' Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	CardID   string   `json:"card_id,omitempty" validate:"omitempty,card_id"`
	Filters  []Filter `json:"filters,omitempty" validate:"omitempty,max=5,dive"`
	APIKey   string   `json:"api_key,omitempty" validate:"omitempty,min=40"`
	Extra    any      `json:"extra,omitempty"`
	Price    *float64 `json:"max_price,omitempty" validate:"omitempty,gte=0,lte=1000"`
}

// tool is the tool every test binds for.
const tool = "shop_search"

// outcome is what a client receives for one call: the bound arguments as
// the handler gets them (JSON), or the rendered envelope and its text.
type outcome struct {
	ok   bool
	args string // the bound arguments, as encoding/json writes them
	err  error
	env  *envelope.Envelope
	raw  string // the envelope's text, as it goes on the wire
}

// call binds args, JSON text, with b and renders a failure as a front
// does with no envelope options of its own.
func call[T any](t testing.TB, b *validate.Binder[T], args string) outcome {
	t.Helper()
	return callWith(t, b, json.RawMessage(args), nil)
}

// callWith is call for arguments as an SDK hands them over (RawMessage,
// []byte, a decoded value or nil), rendered with the renderer r (nil: the
// default one, whose redactor is also the binder's).
func callWith[T any](t testing.TB, b *validate.Binder[T], args any, r *envelope.Renderer) outcome {
	t.Helper()
	if r == nil {
		r = envelope.NewRenderer()
	}
	ctx := context.Background()
	v, err := b.Bind(ctx, tool, args, r.Redactor())
	if err == nil {
		if v == nil {
			t.Fatalf("Bind(%v): neither arguments nor an error", args)
		}
		out, merr := json.Marshal(v)
		if merr != nil {
			t.Fatal(merr)
		}
		return outcome{ok: true, args: string(out)}
	}
	if v != nil {
		t.Fatalf("Bind(%v): arguments and an error %v", args, err)
	}
	raw, _ := args.(json.RawMessage)
	env := r.Error(ctx, envelope.Call{Tool: tool, Args: raw}, err)
	text := string(env.Marshal())
	got, ok := envelope.Parse(text)
	if !ok {
		t.Fatalf("the failure is not an envelope: %s", text)
	}
	return outcome{err: err, env: got, raw: text}
}

// invalid fails unless o is a validation_error envelope with fields.
func invalid(t testing.TB, o outcome) *envelope.Envelope {
	t.Helper()
	if o.ok {
		t.Fatalf("want a validation_error, the arguments bound: %s", o.args)
	}
	if o.env.ErrorType != envelope.ValidationError {
		t.Fatalf("error_type = %s, want validation_error: %s", o.env.ErrorType, o.raw)
	}
	if len(o.env.Fields) == 0 {
		t.Fatalf("validation_error without fields: %s", o.raw)
	}
	return o.env
}

// field returns the field error for path, failing when there is none.
func field(t testing.TB, env *envelope.Envelope, path string) envelope.FieldError {
	t.Helper()
	for _, f := range env.Fields {
		if f.Field == path {
			return f
		}
	}
	t.Fatalf("no field error for %q in %+v", path, env.Fields)
	return envelope.FieldError{}
}

// rules lists env's fields as "path:rule", in order.
func rules(env *envelope.Envelope) string {
	var got []string
	for _, f := range env.Fields {
		got = append(got, f.Field+":"+f.Rule)
	}
	return strings.Join(got, " ")
}

// logs captures slog records.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// logger writes text records, whose attributes a test can read as
// key=value.
func (l *logs) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func ptr[T any](v T) *T { return &v }

// full says to run the full-size inputs: megabyte arguments, million-digit
// numbers, the whole differential corpus. CI sets MCPGUARD_VALIDATE=full;
// a plain go test (and each mutant's run) uses inputs just large enough
// to cross every bound, so that it takes well under a second.
var full = os.Getenv("MCPGUARD_VALIDATE") == "full"

// scale is small, or big when running full size.
func scale(small, big int) int {
	if full {
		return big
	}
	return small
}
