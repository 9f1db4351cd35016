package validate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/validate"
)

type priceArgs struct {
	SKU string `json:"sku" validate:"required,max=12,alphanum"`
}

type Money struct {
	Cents    int    `json:"cents" validate:"min=0"`
	Currency string `json:"currency" validate:"oneof=EUR USD"`
}

type price struct {
	SKU      string            `json:"sku" jsonschema:"The product's SKU"`
	Price    Money             `json:"price"`
	Was      *Money            `json:"was,omitempty"`
	Tags     []string          `json:"tags"`
	Notes    map[string]string `json:"notes,omitempty"`
	Discount *float64          `json:"discount" validate:"omitempty,gte=0,lte=1"`
	Stock    int               `json:"stock,omitempty" validate:"omitempty,min=1"`
}

var errNoSuchSKU = fmt.Errorf("no such SKU: %w", envelope.ErrNotFound)

// priceServer serves "price", whose handler returns what the test asks
// for: the SKU picks a canned result.
func priceServer(t *testing.T, results map[string]any, logs *bytes.Buffer) *middlewaretest.Server {
	t.Helper()
	tool := mcp.NewTool("price", mcp.WithDescription("Price of a SKU."),
		validate.InputSchema[priceArgs](), validate.OutputSchema[price]())
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	h := validate.StructuredHandler(func(ctx context.Context, req mcp.CallToolRequest, a priceArgs) (price, error) {
		switch r := results[a.SKU].(type) {
		case price:
			return r, nil
		case error:
			return price{}, r
		}
		return price{}, errNoSuchSKU
	}, validate.WithEnvelopeOptions(envelope.WithLogger(logger)))
	return middlewaretest.New(t, tool, h, middleware.Default(middleware.WithLogger(logger))...)
}

func outputSchemaOf(t *testing.T, s *middlewaretest.Server) *jsonschema.Schema {
	t.Helper()
	var tool struct {
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(s.ListTools()[0], &tool); err != nil || len(tool.OutputSchema) == 0 {
		t.Fatalf("no outputSchema: %s", s.ListTools()[0])
	}
	return compile(t, tool.OutputSchema)
}

func TestStructuredHandler(t *testing.T) {
	t.Parallel()
	d := 0.25
	good := price{SKU: "SKU-1", Price: Money{Cents: 999, Currency: "EUR"}, Discount: &d}
	var logs bytes.Buffer
	s := priceServer(t, map[string]any{
		"good":    good,
		"neg":     price{SKU: "x", Price: Money{Cents: -1, Currency: "EUR"}},
		"cur":     price{SKU: "x", Price: Money{Cents: 1, Currency: "GBP"}},
		"nan":     price{SKU: "x", Price: Money{Currency: "USD"}, Discount: ptr(math.NaN())},
		"denied":  envelope.Wrap(envelope.AccessDenied, errors.New("managers only")),
		"plain":   errors.New("upstream said 503"),
		"nothing": nil,
	}, &logs)
	schema := outputSchemaOf(t, s)

	t.Run("success carries structuredContent and its JSON as text", func(t *testing.T) {
		r := s.Call(map[string]any{"sku": "good"}).ExpectSuccess()
		sc := r.StructuredContent()
		if !strings.HasPrefix(r.Text(), `{"sku":"SKU-1","price":{"cents":999,"currency":"EUR"},"tags":null,"discount":0.25}`) {
			t.Errorf("text %q", r.Text())
		}
		if !schemaValid(t, schema, string(sc)) {
			t.Errorf("structuredContent %s does not match the outputSchema", sc)
		}
	})
	t.Run("errors keep their sentinels", func(t *testing.T) {
		s.Call(map[string]any{"sku": "missing"}).ExpectError(envelope.NotFound).ExpectMessage("no such SKU")
		s.Call(map[string]any{"sku": "denied"}).ExpectError(envelope.AccessDenied)
		s.Call(map[string]any{"sku": "toolongtoolongtoolong"}).ExpectError(envelope.ValidationError).ExpectField("sku", "max")
	})
	for _, sku := range []string{"neg", "cur", "nan"} {
		t.Run("a result off its schema is an internal_error: "+sku, func(t *testing.T) {
			r := s.Call(map[string]any{"sku": sku}).ExpectError(envelope.InternalError)
			if r.Envelope == nil || r.Envelope.IncidentID == "" || r.StructuredContent() != nil {
				t.Errorf("want an incident ID and no structuredContent: %s", r.Raw)
			}
			if strings.Contains(string(r.Raw), "GBP") || strings.Contains(string(r.Raw), "Cents") {
				t.Errorf("the detail reached the client: %s", r.Raw)
			}
			if !strings.Contains(logs.String(), r.Envelope.IncidentID) || !strings.Contains(logs.String(), "does not match its outputSchema") {
				t.Errorf("the incident is not logged with its detail: %s", logs.String())
			}
		})
	}
}

// Every result StructuredHandler lets through matches the outputSchema a
// strict client checks it against: random values, nils and zeros
// included.
func TestStructuredOutputMatchesSchema(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	results := map[string]any{}
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	for i := range 400 {
		p := price{SKU: pick("", "a", "SKU-1"), Price: Money{Cents: rng.IntN(5) - 1, Currency: pick("", "EUR", "USD")}}
		if rng.IntN(2) == 0 {
			p.Was = &Money{Cents: rng.IntN(3), Currency: pick("EUR", "XXX")}
		}
		if rng.IntN(2) == 0 {
			p.Tags = []string{}
			if rng.IntN(2) == 0 {
				p.Tags = append(p.Tags, "t")
			}
		}
		if rng.IntN(2) == 0 {
			p.Notes = map[string]string{}
		}
		if rng.IntN(2) == 0 {
			p.Discount = ptr([]float64{-0.5, 0, 0.5, 1, 2}[rng.IntN(5)])
		}
		p.Stock = rng.IntN(3) - 1
		results[fmt.Sprint(i)] = p
	}
	var logs bytes.Buffer
	s := priceServer(t, results, &logs)
	schema := outputSchemaOf(t, s)
	ok, refused := 0, 0
	for i := range 400 {
		r := s.Call(map[string]any{"sku": fmt.Sprint(i)})
		if r.IsError() {
			r.ExpectError(envelope.InternalError)
			refused++
			continue
		}
		ok++
		if sc := r.StructuredContent(); !schemaValid(t, schema, string(sc)) {
			t.Errorf("sent %s, which its outputSchema refuses", sc)
		}
	}
	t.Logf("%d results sent, %d refused as internal errors", ok, refused)
	if ok < 20 || refused < 20 {
		t.Fatalf("too one-sided: %d sent, %d refused", ok, refused)
	}
}

func ptr[T any](v T) *T { return &v }
