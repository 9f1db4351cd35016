package validate_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/validate"
)

type Money struct {
	Cents    int    `json:"cents" validate:"min=0"`
	Currency string `json:"currency" validate:"oneof=EUR USD"`
}

type Audit struct {
	By string `json:"by"`
}

type Stamp struct {
	At string `json:"at"`
}

type price struct {
	*Audit
	Stamp
	SKU      string            `json:"sku" jsonschema:"The product's SKU"`
	Price    Money             `json:"price"`
	Was      *Money            `json:"was,omitempty"`
	Tags     []string          `json:"tags"`
	Notes    map[string]string `json:"notes,omitempty"`
	Discount *float64          `json:"discount" validate:"omitempty,gte=0,lte=1"`
	Stock    int               `json:"stock,omitempty" validate:"omitempty,min=1"`
	Exact    *int              `json:"exact" validate:"required"`
	Any      any               `json:"any"`
}

// The output schema states what encoding/json writes: every member
// without omitempty is required (those promoted through an embedded
// pointer are not: a nil one leaves them out; those of an embedded value
// are), pointers, slices and maps
// may be null unless a tag forbids it, and the tags' bounds and enums.
func TestOutputSchemaOf(t *testing.T) {
	t.Parallel()
	want := `{"type":"object","properties":{` +
		`"by":{"type":"string"},` +
		`"at":{"type":"string"},` +
		`"sku":{"description":"The product's SKU","type":"string"},` +
		`"price":{"type":"object","properties":{"cents":{"type":"integer","minimum":0},"currency":{"type":"string","enum":["EUR","USD"]}},"required":["cents","currency"],"additionalProperties":false},` +
		`"was":{"type":"object","properties":{"cents":{"type":"integer","minimum":0},"currency":{"type":"string","enum":["EUR","USD"]}},"required":["cents","currency"],"additionalProperties":false},` +
		`"tags":{"type":["array","null"],"items":{"type":"string"}},` +
		`"notes":{"type":"object","additionalProperties":{"type":"string"}},` +
		`"discount":{"type":["number","null"],"minimum":0,"maximum":1},` +
		`"stock":{"type":"integer","minimum":1},` +
		`"exact":{"type":"integer"},` +
		`"any":{}},` +
		`"required":["at","sku","price","tags","discount","exact","any"],"additionalProperties":false}`
	if got := string(validate.OutputSchemaOf[price]()); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	if got := string(validate.OutputSchemaOf[*price]()); got != want {
		t.Errorf("a pointer's schema is its struct's: %s", got)
	}
	o := validate.NewOutput[price]()
	if string(o.Schema()) != want {
		t.Errorf("Output.Schema: %s", o.Schema())
	}
	// The schema is a copy: changing it changes nothing.
	s := validate.OutputSchemaOf[price]()
	s[0] = 'x'
	if string(validate.OutputSchemaOf[price]()) != want {
		t.Error("OutputSchemaOf returned the shared bytes")
	}
}

func TestOutputCheck(t *testing.T) {
	t.Parallel()
	o := validate.NewOutput[*price]()
	ctx := context.Background()
	good := &price{SKU: "SKU-1", Price: Money{Cents: 999, Currency: "EUR"}, Discount: ptr(0.25), Exact: ptr(1)}
	b, err := o.Check(ctx, good)
	if err != nil || string(b) != `{"at":"","sku":"SKU-1","price":{"cents":999,"currency":"EUR"},"tags":null,"discount":0.25,"exact":1,"any":null}` {
		t.Fatalf("Check(good) = %s, %v", b, err)
	}
	for name, v := range map[string]*price{
		"nil":          nil,
		"negative":     {Price: Money{Cents: -1, Currency: "EUR"}, Exact: ptr(1)},
		"currency":     {Price: Money{Currency: "GBP"}, Exact: ptr(1)},
		"required nil": {Price: Money{Currency: "EUR"}},
		"discount":     {Price: Money{Currency: "EUR"}, Exact: ptr(1), Discount: ptr(2.0)},
		"NaN":          {Price: Money{Currency: "EUR"}, Exact: ptr(1), Discount: ptr(math.NaN())},
		"nested was":   {Price: Money{Currency: "EUR"}, Exact: ptr(1), Was: &Money{Currency: "XXX"}},
	} {
		if b, err := o.Check(ctx, v); err == nil || b != nil {
			t.Errorf("%s: Check = %s, %v; want an error", name, b, err)
		}
	}
	if _, err := validate.NewOutput[price]().Check(ctx, price{Price: Money{Currency: "EUR"}, Exact: ptr(1), Audit: &Audit{By: "me"}}); err != nil {
		t.Errorf("a struct value: %v", err)
	}
	if _, err := o.Check(ctx, nil); err == nil || err.Error() != "the result is nil" {
		t.Errorf("nil: %v", err)
	}
}

// Constrained says whether the tags say more than the types: only then
// does a front advertise the derived output schema instead of its SDK's.
func TestOutputConstrained(t *testing.T) {
	t.Parallel()
	type plain struct {
		A string   `json:"a"`
		B []string `json:"b"`
	}
	type skipped struct {
		A string `json:"a" validate:"-"`
	}
	type nested struct {
		P plain `json:"p"`
		N []struct {
			X int `json:"x" validate:"max=3"`
		} `json:"n"`
	}
	type embedded struct {
		Money
	}
	for name, got := range map[string]bool{
		"plain":    validate.NewOutput[plain]().Constrained(),
		"skipped":  validate.NewOutput[skipped]().Constrained(),
		"price":    validate.NewOutput[price]().Constrained(),
		"nested":   validate.NewOutput[nested]().Constrained(),
		"embedded": validate.NewOutput[embedded]().Constrained(),
	} {
		if want := name != "plain" && name != "skipped"; got != want {
			t.Errorf("%s: Constrained = %v, want %v", name, got, want)
		}
	}
}

// A pattern registered after an Output or a Binder was built is seen by
// the next call: the schema is derived again.
func TestLateRegistrationIsSeen(t *testing.T) {
	t.Parallel()
	v := validate.New(nil)
	type code struct {
		C string `json:"c" validate:"later"`
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an undefined tag must panic before it is registered")
		}
		v.RegisterPattern("later", `[a-z]{2}`)
		o := validate.NewOutput[code](validate.WithValidator(v))
		b := validate.NewBinder[code](validate.WithValidator(v))
		v.RegisterPattern("later2", `[a-z]{3}`)
		if !strings.Contains(string(o.Schema()), `"pattern":"^(?:[a-z]{2})$"`) || !strings.Contains(string(b.Schema()), `"pattern":"^(?:[a-z]{2})$"`) {
			t.Errorf("schemas %s, %s", o.Schema(), b.Schema())
		}
		if _, err := o.Check(context.Background(), code{C: "abc"}); err == nil {
			t.Error("the pattern is not checked")
		}
		if o := call(t, b, `{"c":"abc"}`); o.ok || rules(o.env) != "c:pattern" {
			t.Errorf("got %+v", o)
		}
	}()
	validate.NewOutput[code](validate.WithValidator(v))
}
