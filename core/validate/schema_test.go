package validate_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/validate"
)

// keywordArgs has one member per way a tag becomes JSON Schema: element
// rules, several patterns, bounds on each type, enumerations, the tags
// the schema cannot state. The differential test holds the derived
// keywords to the runtime check; this one pins what they are.
type keywordArgs struct {
	Elems   []string          `json:"elems,omitempty" validate:"omitempty,dive,omitempty,min=3"`
	Nums    []int8            `json:"nums,omitempty" validate:"omitempty,dive,omitempty,min=-5,max=5"`
	Two     string            `json:"two,omitempty" validate:"omitempty,card_id,alpha"`
	Flag    bool              `json:"flag,omitempty" validate:"omitempty,eq=true"`
	NoFlag  bool              `json:"noflag,omitempty" validate:"omitempty,ne=true"`
	BadBool bool              `json:"badbool,omitempty" validate:"omitempty,eq=maybe"`
	Pair    []int             `json:"pair,omitempty" validate:"omitempty,eq=2"`
	NePair  []int             `json:"nepair,omitempty" validate:"omitempty,ne=2"`
	Codes   int               `json:"codes,omitempty" validate:"omitempty,oneof=1 01 +2 -3 18446744073709551615"`
	Ptrs    []*int            `json:"ptrs,omitempty" validate:"omitempty,unique"`
	ByKey   []Filter          `json:"bykey,omitempty" validate:"omitempty,unique=Name"`
	When    string            `json:"when,omitempty" validate:"omitempty,datetime=15:04"`
	Day     string            `json:"day,omitempty" validate:"omitempty,datetime=2006-01-02"`
	Keys    map[string]int    `json:"keys,omitempty" validate:"omitempty,dive,keys,min=2,endkeys,max=9"`
	Only    Filter            `json:"only" validate:"structonly"`
	AnyReq  any               `json:"anyreq" validate:"required"`
	BoolReq bool              `json:"boolreq" validate:"required"`
	TimeReq time.Time         `json:"timereq" validate:"required"`
	F32     float32           `json:"f32,omitempty" validate:"omitempty,gt=1.5"`
	U8      uint8             `json:"u8"`
	U64     uint64            `json:"u64,omitempty" validate:"omitempty,ne=3"`
	I64     int64             `json:"i64,omitempty" validate:"omitempty,len=0x10"`
	Neg     string            `json:"neg,omitempty" validate:"omitempty,lt=0"`
	Deep    map[string][]int  `json:"deep,omitempty" validate:"omitempty,dive,dive,min=1"`
	PtrElem []*string         `json:"ptrelem,omitempty" validate:"omitempty,dive,required"`
	OptPtr  []*string         `json:"optptr,omitempty" validate:"omitempty,dive,omitempty,min=2"`
	Email   string            `json:"email,omitempty" validate:"omitempty,email"`
	UUID    string            `json:"uuid,omitempty" validate:"omitempty,uuid"`
	UUIDInt int               `json:"uuidint,omitempty" validate:"omitempty,uuid"`
	Skip    string            `json:"skip" validate:"-"`
	Labels  map[string]string `json:"labels,omitempty" validate:"omitempty,min=1"`
	Mixed   string            `json:"mixed,omitempty" validate:"omitempty,min=2,len=3,max=5"`
	Small   []int8            `json:"small,omitempty" validate:"omitempty,dive,omitempty,min=1"`
	Capped  []uint16          `json:"capped,omitempty" validate:"omitempty,dive,omitempty,gt=1,lt=9"`
}

// TestSchemaKeywords pins the keywords each tag derives, property by
// property, and what is left to the runtime.
func TestSchemaKeywords(t *testing.T) {
	t.Parallel()
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(validate.Schema[keywordArgs](), &s); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"elems":   `{"type":"array","items":{"type":"string","anyOf":[{"const":""},{"minLength":3}]}}`,
		"nums":    `{"type":"array","items":{"type":"integer","minimum":-5,"maximum":5}}`,
		"two":     `{"type":"string","pattern":"^(?:[A-Z]{2}-[0-9]{4})$","allOf":[{"pattern":"^[a-zA-Z]+$"}]}`,
		"flag":    `{"type":"boolean","const":true}`,
		"noflag":  `{"type":"boolean","not":{"const":true}}`,
		"badbool": `{"type":"boolean","description":"Also checked when called: eq=maybe."}`,
		"pair":    `{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2}`,
		"nepair":  `{"type":"array","items":{"type":"integer"},"description":"Also checked when called: ne=2."}`,
		"codes":   `{"type":"integer","enum":[1,-3,18446744073709551615]}`,
		"ptrs":    `{"type":"array","items":{"type":["integer","null"]},"description":"Also checked when called: unique."}`,
		"bykey":   `{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"op":{"type":"string"}},"required":["name"],"additionalProperties":false},"description":"Also checked when called: unique=Name."}`,
		"when":    `{"type":"string","description":"Also checked when called: datetime=15:04."}`,
		"day":     `{"type":"string","format":"date"}`,
		"keys":    `{"type":"object","propertyNames":{"type":"string","minLength":2},"additionalProperties":{"type":"integer","maximum":9}}`,
		"only":    `{"type":"object","properties":{"name":{"type":"string"},"op":{"type":"string"}},"required":["name"],"additionalProperties":false}`,
		"anyreq":  `{"not":{"type":"null"}}`,
		"boolreq": `{"type":"boolean","const":true}`,
		"timereq": `{"type":"string","format":"date-time","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$","description":"Also checked when called: required."}`,
		"f32":     `{"type":"number","minimum":-3.4028234663852886e+38,"maximum":3.4028234663852886e+38,"exclusiveMinimum":1.5}`,
		"u8":      `{"type":"integer","minimum":0,"maximum":255}`,
		"u64":     `{"type":"integer","minimum":0,"not":{"const":3}}`,
		"i64":     `{"type":"integer","const":16}`,
		"neg":     `{"type":"string","description":"Also checked when called: lt=0."}`,
		"deep":    `{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer","minimum":1}}}`,
		"ptrelem": `{"type":"array","items":{"type":"string"}}`,
		"optptr":  `{"type":"array","items":{"type":["string","null"],"minLength":2}}`,
		"email":   `{"type":"string","description":"Also checked when called: email."}`,
		"uuid":    `{"type":"string","format":"uuid","pattern":"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"}`,
		"uuidint": `{"type":"integer","description":"Also checked when called: uuid."}`,
		"skip":    `{"type":"string"}`,
		"labels":  `{"type":"object","additionalProperties":{"type":"string"},"minProperties":1}`,
		"mixed":   `{"type":"string","minLength":3,"maxLength":3}`,
		"small":   `{"type":"array","items":{"type":"integer","maximum":127,"anyOf":[{"const":0},{"minimum":1}]}}`,
		"capped":  `{"type":"array","items":{"type":"integer","anyOf":[{"const":0},{"exclusiveMinimum":1,"exclusiveMaximum":9}]}}`,
	} {
		if got := string(s.Properties[name]); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	if len(s.Properties) != 34 {
		t.Errorf("%d properties", len(s.Properties))
	}
	if want := []string{"only", "anyreq", "boolreq", "timereq", "u8", "skip"}; !reflect.DeepEqual(s.Required, want) {
		t.Errorf("required %q, want %q", s.Required, want)
	}
	want := []string{"badbool: eq=maybe", "bykey: unique=Name", "email: email", "neg: lt=0", "nepair: ne=2", "ptrs: unique", "timereq: required", "uuidint: uuid", "when: datetime=15:04"}
	if got := validate.RuntimeOnly[keywordArgs](); !reflect.DeepEqual(got, want) {
		t.Errorf("RuntimeOnly %q, want %q", got, want)
	}
}
