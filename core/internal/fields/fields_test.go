package fields_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/internal/fields"
	"github.com/mcpguard/mcpguard/core/redact"
)

// secret is a token the default redactor recognises.
const secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// rendered is err as a client reads it: the envelope the renderer every
// front shares makes of it.
func rendered(t *testing.T, err error) *envelope.Envelope {
	t.Helper()
	env := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "search"}, err)
	got, ok := envelope.Parse(string(env.Marshal()))
	if !ok {
		t.Fatalf("not an envelope: %s", env.Marshal())
	}
	return got
}

func TestFailSumsUpTheFieldsAnAgentReads(t *testing.T) {
	t.Parallel()
	fe := func(path, msg string) envelope.FieldError {
		return envelope.FieldError{Field: path, Rule: "required", Message: msg}
	}
	cases := []struct {
		name   string
		fields []envelope.FieldError
		more   int
		want   string
		listed []string
	}{
		{"one", []envelope.FieldError{fe("path", "path is required")}, 0,
			"Invalid argument: path is required.", []string{"path"}},
		{"two", []envelope.FieldError{fe("path", "path is required"), fe("mode", "mode is required")}, 0,
			"2 invalid arguments: path is required; mode is required.", []string{"path", "mode"}},
		{"three are shown, the rest counted", []envelope.FieldError{
			fe("a", "a is required"), fe("b", "b is required"), fe("c", "c is required"), fe("d", "d is required"),
		}, 0, "4 invalid arguments: a is required; b is required; c is required; and 1 more (see fields).",
			[]string{"a", "b", "c", "d"}},
		{"more left out count in the total and close the list", []envelope.FieldError{fe("path", "path is required")}, 2,
			"3 invalid arguments: path is required.", []string{"path", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := rendered(t, fields.Fail(c.fields, c.more))
			if env.ErrorType != envelope.ValidationError {
				t.Fatalf("error_type = %s, want validation_error", env.ErrorType)
			}
			if env.Message != c.want {
				t.Errorf("message = %q\nwant      %q", env.Message, c.want)
			}
			var listed []string
			for _, f := range env.Fields {
				listed = append(listed, f.Field)
			}
			if strings.Join(listed, ",") != strings.Join(c.listed, ",") {
				t.Errorf("fields = %q, want %q", listed, c.listed)
			}
			if c.more > 0 {
				last := env.Fields[len(env.Fields)-1]
				if last.Rule != "more" || last.Param != "2" {
					t.Errorf("last field = %+v, want the count of the 2 left out", last)
				}
			}
		})
	}
}

func TestFailBoundsEachFieldsText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3*fields.MaxMessageBytes)
	env := rendered(t, fields.Fail([]envelope.FieldError{{Field: long, Rule: "type", Message: long}}, 0))
	f := env.Fields[0]
	// The mark counts against the bound (internal/str.Clip).
	if want := strings.Repeat("x", fields.MaxPathBytes-len("…")) + "…"; f.Field != want {
		t.Errorf("field is %d bytes, want the path cut and marked within %d", len(f.Field), fields.MaxPathBytes)
	}
	if want := strings.Repeat("x", fields.MaxMessageBytes-len("…")) + "…"; f.Message != want {
		t.Errorf("message is %d bytes, want it cut and marked within %d", len(f.Message), fields.MaxMessageBytes)
	}
}

func TestPathKeyWritesAKeyAsTheAgentWouldReadIt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", 70)
	cases := []struct{ path, key, want string }{
		{"", "path", "path"},
		{"filters[0]", "name", "filters[0].name"},
		{"filters[0]", "max-price", "filters[0].max-price"},
		{"a", "max price", `a["max price"]`},
		{"a", "9lives", `a["9lives"]`},
		{"a", "-x", `a["-x"]`},
		{"a", "", `a[""]`},
		{"a", "snake_Case2", "a.snake_Case2"},
		// Every bound of an identifier's characters.
		{"a", "azAZ_09", "a.azAZ_09"},
		{"a", "_", "a._"},
		{"a", strings.Repeat("k", 64), "a." + strings.Repeat("k", 64)},
		// A long key is cut: a path points at a member, it does not echo it.
		{"a", long, `a["` + strings.Repeat("k", 64-len("…")) + `…"]`},
		// A key is redacted before it reaches the path.
		{"a", secret, `a["[REDACTED]"]`},
	}
	for _, c := range cases {
		if got := fields.PathKey(c.path, c.key); got != c.want {
			t.Errorf("PathKey(%q, %q) = %q, want %q", c.path, c.key, got, c.want)
		}
	}
}

func TestWriteKeyQuotesALongIdentifier(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	fields.WriteKey(&b, strings.Repeat("k", 65))
	if want := `["` + strings.Repeat("k", 64-len("…")) + `…"]`; b.String() != want {
		t.Errorf("WriteKey = %q, want %q", b.String(), want)
	}
}

func TestWording(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{fields.OrArgs(""), "the arguments"},
		{fields.OrArgs("filters[0]"), "filters[0]"},
		{fields.UnknownMessage("", "colour"), "colour is not an argument of this tool"},
		{fields.UnknownMessage("filters[0]", "colour"), "colour is not a member of filters[0]"},
		{fields.Verb("characters"), "be"},
		{fields.Verb("items"), "have"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestPreviewShowsAShortRedactedScalar(t *testing.T) {
	t.Parallel()
	red := redact.Default()
	cases := []struct {
		v    any
		want string
	}{
		{"text", `"text"`},
		{strings.Repeat("y", 40), `"` + strings.Repeat("y", 32-len("…")) + `…"`},
		// Redacted whole before the cut: no prefix of the token shows.
		{"key " + secret, `"key [REDACTED]"`},
		{42, "42"},
		{int8(-3), "-3"},
		{uint64(7), "7"},
		{true, "true"},
		{2.5, "2.5"},
		{float32(0.25), "0.25"},
		// Neither objects, arrays nor null are previewed.
		{map[string]any{"a": 1}, ""},
		{[]any{1}, ""},
		{nil, ""},
	}
	for _, c := range cases {
		if got := fields.Preview(c.v, red); got != c.want {
			t.Errorf("Preview(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestSuggestNamesTheValueMeantOrNothing(t *testing.T) {
	t.Parallel()
	topics := []string{"AI/ML", "Security", "Databases"}
	cases := []struct {
		got     string
		allowed []string
		want    string
	}{
		{"Seurity", topics, "Security"},
		{"ai-ml", topics, "AI/ML"},
		{"AI ML", topics, "AI/ML"},
		{"databse", topics, "Databases"},
		// What is allowed already needs no suggestion.
		{"Security", topics, ""},
		// Nothing is clearly closest.
		{"cax", []string{"cat", "car"}, ""},
		{"Networking", topics, ""},
		// The same value listed twice is not a tie.
		{"Seurity", []string{"Security", "Security"}, "Security"},
		// Nothing to compare.
		{"", topics, ""},
		{"--", topics, ""},
		{"Seurity", nil, ""},
		// A long value is no typo, and is not compared.
		{strings.Repeat("a", 63) + "b", []string{strings.Repeat("a", 64)}, strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), []string{strings.Repeat("a", 64)}, ""},
		{strings.Repeat("a", 64), []string{strings.Repeat("a", 97)}, ""},
	}
	for _, c := range cases {
		if s := fields.Suggest(c.got, c.allowed); s != c.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", c.got, c.allowed, s, c.want)
		}
	}
}
