package validate_test

import (
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

type coerceArgs struct {
	Limit int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	Price *float64 `json:"price,omitempty"`
	Exact bool     `json:"exact,omitempty"`
	IDs   []uint16 `json:"ids,omitempty" validate:"omitempty,dive,max=255"`
}

// Numbers and booleans sent as strings: refused by default, as the schema
// says; with WithCoercion, taken when the string holds exactly one,
// logged for the operator and not mentioned to the agent.
func TestCoercion(t *testing.T) {
	t.Parallel()
	var offLogs, onLogs logs
	off := validate.NewBinder[coerceArgs](validate.WithLogger(offLogs.logger()))
	on := validate.NewBinder[coerceArgs](validate.WithCoercion(), validate.WithLogger(onLogs.logger()))
	for args, want := range map[string]string{
		`{"limit":"5"}`:                        `{"limit":5}`,
		`{"limit":"5.0","price":"2.5"}`:        `{"limit":5,"price":2.5}`,
		`{"exact":"true","ids":["1",2,"255"]}`: `{"exact":true,"ids":[1,2,255]}`,
		`{"exact":"false"}`:                    `{}`,
		`{"limit":" 5"}`:                       "limit:type",
		`{"limit":"0x5"}`:                      "limit:type",
		`{"limit":"99"}`:                       "limit:max",
		`{"limit":"1.5"}`:                      "limit:type",
		`{"exact":"yes"}`:                      "exact:type",
		`{"exact":"True"}`:                     "exact:type",
		`{"ids":["256"]}`:                      "ids[0]:max",
		`{"price":"NaN"}`:                      "price:type",
		`{"price":""}`:                         "price:type",
	} {
		if o := call(t, off, args); o.ok || o.env.Fields[0].Rule != "type" {
			t.Errorf("without coercion %s: %+v", args, o)
		}
		o := call(t, on, args)
		if strings.HasPrefix(want, "{") {
			if !o.ok || o.args != want {
				t.Errorf("with coercion %s: %+v, want %s", args, o, want)
			}
			continue
		}
		env := invalid(t, o)
		if got := env.Fields[0].Field + ":" + env.Fields[0].Rule; got != want {
			t.Errorf("with coercion %s: %s, want %s", args, got, want)
		}
		if strings.Contains(o.raw, "coerc") {
			t.Errorf("the agent is told about coercion: %s", o.raw)
		}
	}
	if !strings.Contains(onLogs.String(), `level=INFO msg="mcpguard: coerced string arguments" tool=shop_search coerced=exact,ids[0],ids[2]`+"\n") {
		t.Errorf("coercions not logged: %s", onLogs.String())
	}
	if offLogs.String() != "" {
		t.Errorf("logs without coercion: %s", offLogs.String())
	}
}

// The log names the first ten paths coerced and counts them all; a call
// that coerces nothing, or fails, logs nothing.
func TestCoercionLogIsBounded(t *testing.T) {
	t.Parallel()
	var l logs
	b := validate.NewBinder[coerceArgs](validate.WithCoercion(), validate.WithLogger(l.logger()))
	if o := call(t, b, `{"ids":["1","2","3","4","5","6","7","8","9","10","11"]}`); !o.ok {
		t.Fatal(o.raw)
	}
	want := `coerced="ids[0],ids[1],ids[2],ids[3],ids[4],ids[5],ids[6],ids[7],ids[8],ids[9],… (11 in all)"` + "\n"
	if !strings.HasSuffix(l.String(), want) {
		t.Errorf("log %s, want it to end with %s", l.String(), want)
	}
	before := l.String()
	if o := call(t, b, `{"ids":["1","2","3","4","5","6","7","8","9","10"]}`); !o.ok {
		t.Fatal(o.raw)
	}
	if got := strings.TrimPrefix(l.String(), before); !strings.HasSuffix(got, `coerced=ids[0],ids[1],ids[2],ids[3],ids[4],ids[5],ids[6],ids[7],ids[8],ids[9]`+"\n") {
		t.Errorf("ten paths: %s", got)
	}
	before = l.String()
	call(t, b, `{"limit":5}`)
	call(t, b, `{"limit":"500"}`)
	if l.String() != before {
		t.Errorf("logged without a coercion that bound: %s", strings.TrimPrefix(l.String(), before))
	}
}
