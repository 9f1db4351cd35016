package validate_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/validate"
)

// The schema conventions, pinned: for each Go type, a required and an
// optional member, by value and by pointer, with the schema each
// advertises and what Bind (so each front) does with the member absent,
// null, zero and valid. The verdicts read "+" for accepted, "-" for refused, in that
// order.

type inner struct {
	N string `json:"n,omitempty"`
}

type (
	cString struct {
		RV string  `json:"rv"`
		OV string  `json:"ov,omitempty"`
		RP *string `json:"rp" validate:"required"`
		OP *string `json:"op,omitempty"`
	}
	cInt struct {
		RV int  `json:"rv"`
		OV int  `json:"ov,omitempty"`
		RP *int `json:"rp" validate:"required"`
		OP *int `json:"op,omitempty"`
	}
	cFloat struct {
		RV float64  `json:"rv"`
		OV float64  `json:"ov,omitempty"`
		RP *float64 `json:"rp" validate:"required"`
		OP *float64 `json:"op,omitempty"`
	}
	cBool struct {
		RV bool  `json:"rv"`
		OV bool  `json:"ov,omitempty"`
		RP *bool `json:"rp" validate:"required"`
		OP *bool `json:"op,omitempty"`
	}
	cSlice struct {
		RV []string  `json:"rv"`
		OV []string  `json:"ov,omitempty"`
		RP *[]string `json:"rp" validate:"required"`
		OP *[]string `json:"op,omitempty"`
	}
	cMap struct {
		RV map[string]string  `json:"rv"`
		OV map[string]string  `json:"ov,omitempty"`
		RP *map[string]string `json:"rp" validate:"required"`
		OP *map[string]string `json:"op,omitempty"`
	}
	cStruct struct {
		RV inner  `json:"rv"`
		OV inner  `json:"ov,omitempty"`
		RP *inner `json:"rp" validate:"required"`
		OP *inner `json:"op,omitempty"`
	}
	cTime struct {
		RV time.Time  `json:"rv"`
		OV time.Time  `json:"ov,omitempty"`
		RP *time.Time `json:"rp" validate:"required"`
		OP *time.Time `json:"op,omitempty"`
	}
	cDuration struct {
		RV time.Duration  `json:"rv"`
		OV time.Duration  `json:"ov,omitempty"`
		RP *time.Duration `json:"rp" validate:"required"`
		OP *time.Duration `json:"op,omitempty"`
	}
	cRaw struct {
		RV json.RawMessage  `json:"rv"`
		OV json.RawMessage  `json:"ov,omitempty"`
		RP *json.RawMessage `json:"rp" validate:"required"`
		OP *json.RawMessage `json:"op,omitempty"`
	}
)

type convRow struct {
	name       string
	schema     json.RawMessage
	check      func(t *testing.T, doc string) bool
	zero, good string
	// props is the advertised schema of rv, ov, rp and op, in that order.
	props []string
	// verdicts, for rv, ov, rp and op: absent, null, zero, valid.
	verdicts [4]string
}

func row[T any](name, zero, good string, props []string, verdicts [4]string) convRow {
	b := validate.NewBinder[T]()
	return convRow{name: name, schema: validate.Schema[T](), zero: zero, good: good, props: props, verdicts: verdicts,
		check: func(t *testing.T, doc string) bool {
			o := call(t, b, doc)
			if !o.ok && o.env.ErrorType != envelope.ValidationError {
				t.Fatalf("not a validation_error: %s", o.raw)
			}
			return o.ok
		}}
}

// Every member: required ones refuse absent and null and take zero; the
// optional ones take all four; a pointer with validate:"required" refuses
// nil, so absent and null.
var usual = [4]string{"--++", "++++", "--++", "++++"}

func props(p string) []string { return []string{p, p, p, p} }

var convRows = []convRow{
	row[cString]("string", `""`, `"x"`, props(`{"type":"string"}`), usual),
	row[cInt]("int", `0`, `5`, props(`{"type":"integer"}`), usual),
	row[cFloat]("float64", `0`, `1.5`, props(`{"type":"number"}`), usual),
	row[cBool]("bool", `false`, `true`, props(`{"type":"boolean"}`), usual),
	row[cSlice]("slice", `[]`, `["a"]`, props(`{"type":"array","items":{"type":"string"}}`), usual),
	row[cMap]("map", `{}`, `{"k":"v"}`, props(`{"type":"object","additionalProperties":{"type":"string"}}`), usual),
	row[cStruct]("struct", `{}`, `{"n":"x"}`, props(`{"type":"object","properties":{"n":{"type":"string"}},"additionalProperties":false}`), usual),
	row[cTime]("time.Time", `"0001-01-01T00:00:00Z"`, `"2024-01-02T03:04:05Z"`, props(`{"type":"string","format":"date-time","pattern":"RFC3339"}`), usual),
	row[cDuration]("time.Duration", `0`, `1000`, props(`{"type":"integer"}`), usual),
	// Any JSON value, null included, except where "required" refuses a
	// nil pointer; its zero is null.
	row[cRaw]("json.RawMessage", `null`, `{"a":1}`, []string{`{}`, `{}`, `{"not":{"type":"null"}}`, `{}`}, [4]string{"-+++", "++++", "---+", "++++"}),
}

func TestSchemaConventions(t *testing.T) {
	t.Parallel()
	for _, r := range convRows {
		t.Run(r.name, func(t *testing.T) {
			var s struct {
				Properties           map[string]json.RawMessage `json:"properties"`
				Required             []string                   `json:"required"`
				AdditionalProperties bool                       `json:"additionalProperties"`
			}
			raw := strings.ReplaceAll(string(r.schema), strconv.Quote(dateTimePatternForTest), `"RFC3339"`)
			if err := json.Unmarshal([]byte(raw), &s); err != nil {
				t.Fatal(err)
			}
			if strings.Join(s.Required, ",") != "rv,rp" || s.AdditionalProperties {
				t.Errorf("required = %v, additionalProperties = %v; want [rv rp], false: %s", s.Required, s.AdditionalProperties, raw)
			}
			for i, f := range []string{"rv", "ov", "rp", "op"} {
				if got := string(s.Properties[f]); got != r.props[i] {
					t.Errorf("%s: schema %s, want %s", f, got, r.props[i])
				}
				var verdicts strings.Builder
				for _, v := range []string{"", "null", r.zero, r.good} {
					m := map[string]json.RawMessage{"rv": json.RawMessage(r.good), "rp": json.RawMessage(r.good)}
					if v == "" {
						delete(m, f)
					} else {
						m[f] = json.RawMessage(v)
					}
					b, _ := json.Marshal(m)
					if r.check(t, string(b)) {
						verdicts.WriteString("+")
					} else {
						verdicts.WriteString("-")
					}
				}
				if got := verdicts.String(); got != r.verdicts[i] {
					t.Errorf("%s: absent, null, zero, valid: got %s, want %s", f, got, r.verdicts[i])
				}
			}
		})
	}
}

// The RFC 3339 shape a time.Time advertises, as the schema writes it.
const dateTimePatternForTest = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
