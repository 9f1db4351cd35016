package validate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/core/validate"
)

func TestNoRawValueEchoed(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	t.Run("secret-named field gets no preview", func(t *testing.T) {
		o := call(t, b, `{"query":"agents","api_key":"hunter2-but-short"}`)
		if f := field(t, invalid(t, o), "api_key"); f.Rule != "min" {
			t.Fatalf("got %+v", f)
		}
		if strings.Contains(o.raw, "hunter2") {
			t.Fatalf("secret echoed: %s", o.raw)
		}
	})
	t.Run("long value is clipped", func(t *testing.T) {
		long := strings.Repeat("x", 10000)
		o := call(t, b, `{"query":"`+long+`"}`)
		if f := field(t, invalid(t, o), "query"); f.Rule != "max" || f.Param != "300" {
			t.Fatalf("got %+v", f)
		}
		if strings.Contains(o.raw, strings.Repeat("x", 40)) {
			t.Fatal("long value echoed")
		}
	})
	t.Run("token in a value is redacted", func(t *testing.T) {
		o := call(t, b, `{"query":"agents","category":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)
		invalid(t, o)
		if strings.Contains(o.raw, "ghp_abcdef") {
			t.Fatalf("token echoed: %s", o.raw)
		}
	})
	t.Run("unknown key is clipped", func(t *testing.T) {
		o := call(t, b, `{"query":"agents","`+strings.Repeat("k", 500)+`":1}`)
		invalid(t, o)
		if strings.Contains(o.raw, strings.Repeat("k", 100)) {
			t.Fatal("long key echoed")
		}
	})
	t.Run("a secret-named member gets no suggestion", func(t *testing.T) {
		type args struct {
			Password string `json:"password" validate:"oneof=alpha beta"`
		}
		o := call(t, validate.NewBinder[args](), `{"password":"alpah"}`)
		f := field(t, invalid(t, o), "password")
		if f.Suggestion != "" || strings.Contains(o.raw, "alpah") || f.Message != "password must be one of: alpha, beta" {
			t.Fatalf("got %+v", f)
		}
	})
}

// A value's preview is redacted whole, then cut: a token straddling the
// old 256-byte cut showed its first characters.
func TestPreviewRedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("A1b2C3d4e5", 4)[:36]
	value := "password=" + strings.Repeat("x", 230) + " " + token + " " + strings.Repeat("y", 30)
	if len(value) <= 300 || strings.Index(value, token) >= 256 || strings.Index(value, token)+len(token) <= 256 {
		t.Fatal("the token must straddle byte 256 of a value over 300 bytes")
	}
	args, _ := json.Marshal(map[string]string{"query": value})
	o := call(t, validate.NewBinder[SearchArgs](), string(args))
	if f := field(t, invalid(t, o), "query"); f.Rule != "max" || !strings.Contains(f.Message, "(got ") {
		t.Fatalf("want a max error with a preview: %+v", f)
	}
	if strings.Contains(o.raw, "ghp_") {
		t.Errorf("a token prefix reached the wire: %s", o.raw)
	}
}

// Previews follow the redactor Bind is given, the chain's: its own rules,
// and the default's keeping of what the agent sent itself (a path); nil
// is redact.Default().
func TestPreviewFollowsTheRedactor(t *testing.T) {
	t.Parallel()
	type fileArgs struct {
		Path string `json:"path" validate:"required,max=5"`
	}
	b := validate.NewBinder[fileArgs]()
	own := envelope.NewRenderer(envelope.WithRedactor(redact.New(redact.NewRule("word", `classified`, "[W]"))))
	if f := field(t, invalid(t, callWith(t, b, json.RawMessage(`{"path":"classified"}`), own)), "path"); f.Message != `path must be at most 5 characters (got "[W]")` {
		t.Errorf("the redactor's own rule: %+v", f)
	}
	if f := field(t, invalid(t, call(t, b, `{"path":"classified"}`)), "path"); f.Message != `path must be at most 5 characters (got "classified")` {
		t.Errorf("the default redactor has no such rule: %+v", f)
	}
	if f := field(t, invalid(t, call(t, b, `{"path":"/srv/a.md"}`)), "path"); !strings.Contains(f.Message, `(got "/srv/a.md")`) {
		t.Errorf("the default redactor shows back the path the agent sent: %+v", f)
	}
	_, err := b.Bind(t.Context(), tool, json.RawMessage(`{"path":"token=ghp_`+strings.Repeat("A1b2C3d4e5", 4)+`"}`), nil)
	if err == nil || strings.Contains(err.Error(), "ghp_") || !strings.Contains(err.Error(), "(got ") {
		t.Fatalf("a nil redactor is the default one: %v", err)
	}
}

func TestFailureEnvelopeParses(t *testing.T) {
	t.Parallel()
	env := invalid(t, call(t, validate.NewBinder[SearchArgs](), `{"query":"abc","filters":`+"["+strings.Repeat("1,", 100)+"1]}"))
	if !strings.HasPrefix(env.Message, "101 invalid arguments: ") {
		t.Errorf("message %q", env.Message)
	}
}

// Each rule's message, as the agent reads it: the schema's terms, the
// unit for lengths, the bound, and the value it sent.
type ruleArgs struct {
	Name  string            `json:"name,omitempty" validate:"omitempty,min=2,max=4"`
	Code  string            `json:"code,omitempty" validate:"omitempty,len=3"`
	Word  string            `json:"word,omitempty" validate:"omitempty,gt=1,lt=4"`
	Tags  []string          `json:"tags,omitempty" validate:"omitempty,min=2,max=3,unique"`
	Pair  []int             `json:"pair,omitempty" validate:"omitempty,len=2"`
	Few   []int             `json:"few,omitempty" validate:"omitempty,gt=1,lt=3"`
	Meta  map[string]string `json:"meta,omitempty" validate:"omitempty,min=1,max=1"`
	Size  map[string]int    `json:"size,omitempty" validate:"omitempty,len=1"`
	Span  map[string]int    `json:"span,omitempty" validate:"omitempty,gt=1,lt=3"`
	N     int               `json:"n,omitempty" validate:"omitempty,gte=2,lte=4"`
	Exact int               `json:"exact,omitempty" validate:"omitempty,len=5"`
	Open  float64           `json:"open,omitempty" validate:"omitempty,gt=0.5,lt=1.5"`
	Is    string            `json:"is,omitempty" validate:"omitempty,eq=yes"`
	Not   int               `json:"not,omitempty" validate:"omitempty,ne=7"`
	Mail  string            `json:"mail,omitempty" validate:"omitempty,email"`
	ID    string            `json:"id,omitempty" validate:"omitempty,uuid"`
	Link  string            `json:"link,omitempty" validate:"omitempty,url"`
	Day   string            `json:"day,omitempty" validate:"omitempty,datetime=2006-01-02"`
	Alpha string            `json:"alpha,omitempty" validate:"omitempty,alpha"`
	Hex   string            `json:"hex,omitempty" validate:"omitempty,hexadecimal"`
	Must  string            `json:"must" validate:"required"`
	Count int               `json:"count" validate:"min=1"`
	Ptr   *int              `json:"ptr" validate:"required"`
	Float float32           `json:"float,omitempty" validate:"omitempty,max=2.5"`
}

func TestRuleMessages(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[ruleArgs]()
	base := `"must":"x","count":1,"ptr":1`
	for args, want := range map[string]string{
		`"name":"a"`:                 `name must be at least 2 characters (got "a")`,
		`"name":"abcde"`:             `name must be at most 4 characters (got "abcde")`,
		`"code":"ab"`:                `code must be exactly 3 characters (got "ab")`,
		`"word":"a"`:                 `word must be more than 1 character (got "a")`,
		`"word":"abcd"`:              `word must be fewer than 4 characters (got "abcd")`,
		`"tags":["a"]`:               `tags must have at least 2 items`,
		`"tags":["a","b","c","d"]`:   `tags must have at most 3 items`,
		`"tags":["a","a"]`:           `tags must not contain duplicate items`,
		`"pair":[1]`:                 `pair must have exactly 2 items`,
		`"few":[1]`:                  `few must have more than 1 item`,
		`"few":[1,2,3]`:              `few must have fewer than 3 items`,
		`"meta":{"a":"1","b":"2"}`:   `meta must have at most 1 entry`,
		`"size":{"a":1,"b":2}`:       `size must have exactly 1 entry`,
		`"span":{"a":1}`:             `span must have more than 1 entry`,
		`"span":{"a":1,"b":2,"c":3}`: `span must have fewer than 3 entries`,
		`"n":1`:                      `n must be at least 2 (got 1)`,
		`"n":5`:                      `n must be at most 4 (got 5)`,
		`"exact":4`:                  `exact must equal 5 (got 4)`,
		`"open":0.5`:                 `open must be greater than 0.5 (got 0.5)`,
		`"open":1.5`:                 `open must be less than 1.5 (got 1.5)`,
		`"is":"no"`:                  `is must equal "yes" (got "no")`,
		`"not":7`:                    `not must not equal "7" (got 7)`,
		`"mail":"x"`:                 `mail must be an email address (got "x")`,
		`"id":"x"`:                   `id must be a UUID such as 123e4567-e89b-12d3-a456-426614174000 (got "x")`,
		`"link":"x"`:                 `link must be an absolute URL such as https://example.com/ (got "x")`,
		`"day":"x"`:                  `day must be a date/time in the Go layout 2006-01-02 (got "x")`,
		`"alpha":"a1"`:               `alpha must match the pattern ^[a-zA-Z]+$ (got "a1")`,
		`"hex":"xyz"`:                `hex must match the pattern ^(0[xX])?[0-9a-fA-F]+$ (got "xyz")`,
		`"must":""`:                  `must is required and must not be empty`,
		`"count":0`:                  `count must be at least 1 (got 0)`,
		`"ptr":null`:                 `ptr is required`,
		`"float":2.75`:               `float must be at most 2.5 (got 2.75)`,
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte("{"+base+","+args+"}"), &m); err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(m)
		env := invalid(t, call(t, b, string(doc)))
		if len(env.Fields) != 1 || env.Fields[0].Message != want {
			t.Errorf("%s:\n got %+v\nwant %q", doc, env.Fields, want)
		}
		if env.Message != "Invalid argument: "+want+"." {
			t.Errorf("%s: envelope message %q", doc, env.Message)
		}
	}
}

// A member the agent left out, whose zero fails a rule other than
// required, is reported as required, without the zero as a preview.
func TestAbsentMemberIsRequired(t *testing.T) {
	t.Parallel()
	type inner struct {
		Min int `json:"min,omitempty" validate:"min=1"`
	}
	type args struct {
		Count  int              `json:"count,omitempty" validate:"min=1"`
		Items  []inner          `json:"items" validate:"dive"`
		ByName map[string]inner `json:"by_name" validate:"dive"`
	}
	b := validate.NewBinder[args]()
	env := invalid(t, call(t, b, `{"items":[{}],"by_name":{"a.b[c]":{}}}`))
	for path, want := range map[string]string{
		"count":                 "count is required and must be at least 1",
		"items[0].min":          "items[0].min is required and must be at least 1",
		`by_name["a.b[c]"].min`: `by_name["a.b[c]"].min is required and must be at least 1`,
	} {
		if f := field(t, env, path); f.Message != want || f.Rule != "min" {
			t.Errorf("%s: %+v, want %q", path, f, want)
		}
	}
	// Sent as zero, it is the value that is wrong.
	env = invalid(t, call(t, b, `{"count":0,"items":[{"min":0}],"by_name":{"k":{"min":0}}}`))
	if got := rules(env); got != "count:min items[0].min:min by_name.k.min:min" {
		t.Fatalf("fields %s", got)
	}
	for path, want := range map[string]string{
		"count":         "count must be at least 1 (got 0)",
		"items[0].min":  "items[0].min must be at least 1 (got 0)",
		"by_name.k.min": "by_name.k.min must be at least 1 (got 0)",
	} {
		if f := field(t, env, path); f.Message != want {
			t.Errorf("%s: %+v, want %q", path, f, want)
		}
	}
}

// The summary names the first three violations and counts the rest.
func TestSummaryMessage(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[ruleArgs]()
	env := invalid(t, call(t, b, `{"must":"","count":0,"ptr":null,"n":9}`))
	want := `4 invalid arguments: n must be at most 4 (got 9); must is required and must not be empty; count must be at least 1 (got 0); and 1 more (see fields).`
	if env.Message != want {
		t.Errorf("message\n got %q\nwant %q", env.Message, want)
	}
	env = invalid(t, call(t, b, `{"must":"","count":0,"ptr":1}`))
	if want := `2 invalid arguments: must is required and must not be empty; count must be at least 1 (got 0).`; env.Message != want {
		t.Errorf("message\n got %q\nwant %q", env.Message, want)
	}
	env = invalid(t, call(t, b, `{"must":"","count":0,"ptr":null}`))
	if want := `3 invalid arguments: must is required and must not be empty; count must be at least 1 (got 0); ptr is required.`; env.Message != want {
		t.Errorf("message\n got %q\nwant %q", env.Message, want)
	}
}

// Unknown members list the allowed names, and suggest the one meant.
func TestUnknownMemberSuggestion(t *testing.T) {
	t.Parallel()
	b := validate.NewBinder[SearchArgs]()
	env := invalid(t, call(t, b, `{"query":"agents","qeury":"x","limt":1,"zzzzzz":1}`))
	f := field(t, env, "qeury")
	if f.Suggestion != "query" || f.Message != `qeury is not an argument of this tool; did you mean "query"?` {
		t.Errorf("got %+v", f)
	}
	if strings.Join(f.Allowed, ",") != "query,category,limit,card_id,filters,api_key,extra,max_price" {
		t.Errorf("allowed %q", f.Allowed)
	}
	if f := field(t, env, "limt"); f.Suggestion != "limit" {
		t.Errorf("got %+v", f)
	}
	if f := field(t, env, "zzzzzz"); f.Suggestion != "" || f.Message != "zzzzzz is not an argument of this tool" {
		t.Errorf("got %+v", f)
	}
	// Keys that are no identifiers are quoted in paths.
	env = invalid(t, call(t, b, `{"query":"agents","a b":1,"1x":2,"":3,"a-b":4}`))
	if got := rules(env); got != `[""]:unknown ["1x"]:unknown ["a b"]:unknown a-b:unknown` {
		t.Errorf("fields %s", got)
	}
}
