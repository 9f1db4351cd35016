package declared_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpguard/mcpguard/core/declared"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
)

// padTo returns the JSON object text prefix + `"pad":"xxx…"}` of exactly n
// bytes.
func padTo(t *testing.T, prefix string, n int) string {
	t.Helper()
	s := prefix + `"pad":"` + strings.Repeat("x", n-len(prefix)-len(`"pad":""}`)) + `"}`
	if len(s) != n || !json.Valid([]byte(s)) {
		t.Fatalf("padTo: %d bytes, want %d", len(s), n)
	}
	return s
}

// checkErr runs Check and renders its failure, if any, as a client reads it.
func checkErr(t *testing.T, d *declared.Checker, raw []byte, decoded any) *envelope.Envelope {
	t.Helper()
	_, err := d.Check(context.Background(), raw, decoded, nil)
	if err == nil {
		return nil
	}
	e := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t", Args: raw}, err)
	got, ok := envelope.Parse(string(e.Marshal()))
	if !ok {
		t.Fatalf("not an envelope: %s", e.Marshal())
	}
	return got
}

// TestDeclaredArgumentSizeBoundIsExact: arguments of exactly WithMaxBytes
// bytes are checked, one byte more is refused by size, naming the bound,
// whether the SDK hands over the text alone or with the decoded arguments.
// Arguments handed over decoded only have no text to bound until they
// must be encoded for the library: a call the fast path finds valid
// passes, one that is not is refused by size.
func TestDeclaredArgumentSizeBoundIsExact(t *testing.T) {
	t.Parallel()
	const limit = 200
	d := declared.New("read_file", []byte(fileSchema), declared.WithMaxBytes(limit))
	for _, n := range []int{limit, limit + 1} {
		raw := padTo(t, `{"path":"a",`, n)
		var decoded map[string]any
		if err := json.Unmarshal([]byte(raw), &decoded); err != nil {
			t.Fatal(err)
		}
		invalid := map[string]any{"path": 123.0, "pad": decoded["pad"]} // as many bytes as "a"
		for name, in := range map[string]struct {
			raw     []byte
			decoded any
		}{"text": {[]byte(raw), nil}, "both": {[]byte(raw), decoded}, "decoded and invalid": {nil, invalid}} {
			if n == limit && name == "decoded and invalid" {
				continue
			}
			env := checkErr(t, d, in.raw, in.decoded)
			if n == limit && env != nil {
				t.Errorf("%s: %d bytes refused: %+v", name, n, env.Fields)
			}
			if n > limit && (env == nil || rules(env) != ":size" || env.Fields[0].Param != strconv.Itoa(limit) ||
				!strings.Contains(env.Fields[0].Message, fmt.Sprintf("%d bytes of JSON, more than the %d this server accepts", n, limit))) {
				t.Errorf("%s: %d bytes: %+v", name, n, env)
			}
		}
	}
}

// TestDeclaredEnumBudgetIsExact: with an enum of 4,096 values, arguments
// of 2²⁴ / 4,096 = 4,096 bytes are checked and one byte more is refused,
// with that number as the bound.
func TestDeclaredEnumBudgetIsExact(t *testing.T) {
	t.Parallel()
	values := make([]string, 4096)
	for i := range values {
		values[i] = strconv.Quote("v" + strconv.Itoa(i))
	}
	d := declared.New("t", []byte(`{"type":"object","properties":{"tag":{"type":"string","enum":[`+strings.Join(values, ",")+`]}}}`))
	if env := checkErr(t, d, []byte(padTo(t, `{"tag":"v4095",`, 4096)), nil); env != nil {
		t.Errorf("4,096 bytes refused: %+v", env.Fields)
	}
	raw := padTo(t, `{"tag":"v4095",`, 4097)
	env := checkErr(t, d, []byte(raw), nil)
	if env == nil || rules(env) != ":size" || env.Fields[0].Param != "4096" ||
		!strings.Contains(env.Fields[0].Message, "4097 bytes of JSON, more than the 4096 this tool's schema can check") {
		t.Errorf("4,097 bytes: %+v", env)
	}
}

// TestDeclaredChecksDecodedArgumentsAlone: an SDK that hands over only the
// decoded arguments gets the same field errors as one that sends the text.
func TestDeclaredChecksDecodedArgumentsAlone(t *testing.T) {
	t.Parallel()
	d := declared.New("read_file", []byte(fileSchema))
	env := checkErr(t, d, nil, map[string]any{"path": 5.0, "limit": 500.0})
	if env == nil || rules(env) != "limit:max path:type" {
		t.Errorf("decoded arguments: %+v", env)
	}
}

// TestDeclaredSchemaSizeBoundIsExact: a schema of exactly
// MaxDeclaredSchemaBytes is enforced, one byte more is not, and says why.
func TestDeclaredSchemaSizeBoundIsExact(t *testing.T) {
	t.Parallel()
	prefix := `{"type":"object","properties":{"a":{"type":"string"}},`
	at := declared.New("t", []byte(padTo(t, prefix, declared.MaxSchemaBytes)))
	if !at.Enforced() {
		t.Errorf("a schema of MaxDeclaredSchemaBytes: %v", at.Off())
	}
	if env := checkErr(t, at, []byte(`{"a":1}`), nil); env == nil || rules(env) != "a:type" {
		t.Errorf("the largest schema is not checked: %+v", env)
	}
	over := declared.New("t", []byte(padTo(t, prefix, declared.MaxSchemaBytes+1)))
	if over.Enforced() || over.Off() == nil || !strings.Contains(over.Off().Error(), "bytes, more than the") {
		t.Errorf("a schema one byte larger: enforced %v, off %v", over.Enforced(), over.Off())
	}
}

// TestDeclaredTrivialSchemaUpToFourKilobytes: a schema that only says
// "an object", in up to 4,096 bytes of words for people, is not checked.
func TestDeclaredTrivialSchemaUpToFourKilobytes(t *testing.T) {
	t.Parallel()
	s := `{"type":"object","description":"` + strings.Repeat("x", 4096-len(`{"type":"object","description":""}`)) + `"}`
	if d := declared.New("t", []byte(s)); len(s) != 4096 || d.Enforced() {
		t.Errorf("a %d-byte trivial schema is enforced", len(s))
	}
}

// TestDeclaredOffOnceASchemaProvesUncheckable: a schema found uncheckable
// at a call says so from then on.
func TestDeclaredOffOnceASchemaProvesUncheckable(t *testing.T) {
	t.Parallel()
	loop := declared.New("t", []byte(`{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`))
	if loop.Off() != nil {
		t.Skip("the library refuses the cycle when compiling")
	}
	if env := checkErr(t, loop, []byte(`{"x":1}`), nil); env != nil {
		t.Fatalf("a ref cycle failed the call: %+v", env.Fields)
	}
	if loop.Enforced() || loop.Off() == nil {
		t.Errorf("after the cycle: enforced %v, off %v", loop.Enforced(), loop.Off())
	}
}

// TestDeclaredPreviewsUseTheCallersRedactor: the value a field error shows
// is redacted by the Redactor Check is given, not the default one.
func TestDeclaredPreviewsUseTheCallersRedactor(t *testing.T) {
	t.Parallel()
	d := declared.New("t", []byte(`{"type":"object","properties":{"code":{"type":"string","maxLength":3}}}`))
	red := redact.New(redact.Rule{Name: "test/zebra", Pattern: regexp.MustCompile(`zebra`), Replacement: "[animal]", Triggers: []string{"zebra"}})
	raw := []byte(`{"code":"zebra-crossing"}`)
	_, err := d.Check(context.Background(), raw, nil, red)
	if err == nil {
		t.Fatal("accepted")
	}
	e := envelope.NewRenderer().Error(context.Background(), envelope.Call{Tool: "t", Args: raw}, err)
	if text := string(e.Marshal()); strings.Contains(text, "zebra") || !strings.Contains(text, "[animal]-crossing") {
		t.Errorf("the caller's redactor did not redact the preview: %s", text)
	}
}

// Concurrent checks of one tool share its compiled schema: with and
// without patterns (a schema with patterns gives each check a copy with a
// budget of its own), the checks agree and, under -race, do not race on
// the shared copy's budget (the README's test command found one).
func TestDeclaredConcurrentChecksDoNotShareABudget(t *testing.T) {
	t.Parallel()
	for name, schema := range map[string]string{
		"no pattern": `{"type":"object","properties":{"q":{"type":"string","maxLength":8},"n":{"type":"integer","maximum":5}},"anyOf":[{"required":["q"]},{"required":["n"]}]}`,
		"pattern":    `{"type":"object","properties":{"q":{"type":"string","pattern":"^[a-z]+$"},"n":{"type":"integer","maximum":5}},"anyOf":[{"required":["q"]},{"required":["n"]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := declared.New("t", []byte(schema))
			var wg sync.WaitGroup
			var wrong atomic.Int64
			for g := range 8 {
				wg.Go(func() {
					for i := range 50 {
						ok := (g+i)%2 == 0
						raw := []byte(`{"q":"abc","n":3}`)
						if !ok {
							raw = []byte(`{"q":"abc","n":9}`)
						}
						if _, err := d.Check(context.Background(), raw, nil, nil); (err == nil) != ok {
							wrong.Add(1)
						}
					}
				})
			}
			wg.Wait()
			if n := wrong.Load(); n != 0 {
				t.Errorf("%d of 400 concurrent checks answered wrongly", n)
			}
		})
	}
}
