package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// agree checks that wireDecoder reads b as json.Unmarshal reads it into
// an `any`: the same value, and an error exactly when it has one.
func agree(t *testing.T, d *wireDecoder, b []byte) bool {
	t.Helper()
	var want any
	wantErr := json.Unmarshal(b, &want)
	got, err := d.decode(b)
	return assert.Equal(t, want, got, "%s", b) && assert.Equal(t, wantErr != nil, err != nil, "%s: %v / %v", b, wantErr, err)
}

// randomValue builds a JSON value from the characters that decide how a
// decoder reads text: escapes, multi-byte and invalid UTF-8, surrogates.
func randomValue(r *rand.Rand, depth int) any {
	pieces := []string{"a", "é", "\u2028", "<", "&", "\"", "\\", "/", "\n", "\x01", "\xff", "\xed\xa0\x80", "😀", "\ufffd", " "}
	str := func() string {
		var b bytes.Buffer
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	switch k := r.IntN(8); {
	case depth > 3 || k == 0:
		return str()
	case k == 1:
		return []float64{0, -1.5, 1e21, 123456789012345678, 5e-324, 1.7976931348623157e308}[r.IntN(6)]
	case k == 2:
		return r.IntN(2) == 0
	case k == 3:
		return nil
	case k <= 5:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(5) {
			m[str()] = randomValue(r, depth+1)
		}
		return m
	}
}

// The wire decoder reads what encoding/json encodes exactly as
// json.Unmarshal does: random values, raw schemas that carry invalid
// UTF-8, escaped and lone surrogates, duplicate keys and numbers past
// float64's range, and the tools of the generated listings.
func TestWireDecoderAgreesWithEncodingJSON(t *testing.T) {
	d := &wireDecoder{}
	r := rand.New(rand.NewPCG(7, 8))
	for range 5_000 {
		b, err := json.Marshal(randomValue(r, 0))
		require.NoError(t, err)
		if !agree(t, d, b) {
			return
		}
	}
	for _, raw := range []string{
		`{"type":"object","a":"\ud83d\ude00","b":"\ud83d","c":"\ude00\ud83d","d":"\ud83d\u0041","e":"\u00e9\/"}`,
		"{\"type\":\"object\",\"description\":\"bad \xff utf-8 \xed\xa0\x80\"}",
		`{"type":"object","x":1,"x":2,"y":{"z":[1e400,2]}}`,
		`{"type":"object","n":-0,"m":1E+2,"k":0.000001}`,
	} {
		tool := mcp.NewToolWithRawSchema("t", "d", json.RawMessage(raw))
		var buf bytes.Buffer
		require.NoError(t, json.NewEncoder(&buf).Encode(tool))
		agree(t, d, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	for i := range 50 {
		tool := mcp.NewTool(fmt.Sprintf("shop_tool_%d", i), mcp.WithDescription("Use this when… <b>&</b>"),
			mcp.WithString("q", mcp.Enum("a", "b")), mcp.WithNumber("n", mcp.Min(-1), mcp.Max(1e9)))
		b, err := json.Marshal(tool)
		require.NoError(t, err)
		agree(t, d, b)
	}
}
