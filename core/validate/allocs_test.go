package validate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/core/validate"
)

type flatArgs struct {
	Query    string   `json:"query" validate:"required,min=3,max=300"`
	Category string   `json:"category,omitempty" validate:"omitempty,oneof=AI/ML Data Security"`
	Limit    int      `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
	MaxPrice *float64 `json:"max_price,omitempty" validate:"omitempty,gte=0,lte=1000"`
	Exact    bool     `json:"exact,omitempty"`
	Ratio    float32  `json:"ratio,omitempty"`
}

type nestedArgs struct {
	Query   string            `json:"query" validate:"required"`
	When    time.Time         `json:"when,omitempty"`
	Filters []Filter          `json:"filters,omitempty" validate:"omitempty,dive"`
	Extra   any               `json:"extra,omitempty"`
	Note    any               `json:"note,omitempty"`
	Flag    any               `json:"flag,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	List    any               `json:"list,omitempty"`
	Empty   []int             `json:"empty,omitempty"`
}

// A valid call costs what decoding and validator/v10 must: the scan that
// proves the arguments clean allocates nothing, and encoding/json decodes
// them once. The counts are exact, so that a scan that sends clean
// arguments down the slow path (its copy of every value and walk) fails
// here even though the result is right. 17 is new(T), its two strings and
// *float64, encoding/json's and validator/v10's own; the slow path costs
// about 60.
func TestSuccessPathAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	for _, c := range []struct {
		name   string
		bind   func(json.RawMessage) error
		args   string
		allocs float64
	}{
		{"flat", binds[flatArgs](), `{"query":"mcp servers","category":"AI/ML","limit":10,"max_price":2.99,"exact":true,"ratio":0.5}`, 17},
		{"flat, escaped string: encoding/json", binds[flatArgs](), `{"query":"mcp \u0073ervers"}`, 14},
		{"nested, encoding/json", binds[nestedArgs](), `{"query":"mcp servers","when":"2024-01-02T03:04:05Z","filters":[{"name":"abc","op":"eq"}],"extra":{"a":["x",1,true,null]},"note":"text","flag":true,"labels":{"k":"v"},"list":[1,"x"],"empty":[]}`, 43},
		{"no arguments", binds[struct{}](), ``, 3},
		{"slow path, for scale", binds[flatArgs](), `{"query":"mcp servers","category":"AI/ML","limit":10.0,"max_price":2.99,"exact":true}`, 0},
	} {
		if err := c.bind(json.RawMessage(c.args)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := testing.AllocsPerRun(200, func() { _ = c.bind(json.RawMessage(c.args)) })
		t.Logf("%s: %v allocations", c.name, n)
		if c.allocs > 0 && n != c.allocs || c.allocs == 0 && n <= 50 {
			t.Errorf("%s: %v allocations per call, want %v (0: over 50)", c.name, n, c.allocs)
		}
	}
}

func binds[T any]() func(json.RawMessage) error {
	b := validate.NewBinder[T]()
	return func(raw json.RawMessage) error {
		_, err := b.Bind(context.Background(), tool, raw, nil)
		return err
	}
}
