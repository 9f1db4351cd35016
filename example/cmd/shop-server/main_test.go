package main

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

func serve(t *testing.T, c config, spans *bytes.Buffer) *middlewaretest.Server {
	t.Helper()
	store, err := shop.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	opts, shutdown, err := shopOptions(c, slog.New(slog.DiscardHandler), spans)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(shutdown)
	return middlewaretest.FromServer(t, shop.NewServer(store, opts...))
}

func TestRateFlagRefusesWithARetryDelay(t *testing.T) {
	srv := serve(t, config{rate: 1}, nil)
	srv.CallTool("shop_get_schema", nil).ExpectSuccess()
	r := srv.CallTool("shop_get_schema", nil).ExpectError(envelope.ExecutionFailed).ExpectNextStep("Wait")
	if r.Envelope == nil || r.Envelope.RetryAfterMS <= 0 || !r.Envelope.Retryable {
		t.Fatalf("want a retryable refusal with retry_after_ms, got %s", r.Raw)
	}
	serve(t, config{}, nil).CallTool("shop_get_schema", nil).ExpectSuccess()
}

func TestOtelStdoutFlagPrintsTheSpanOfAFailedCall(t *testing.T) {
	var spans bytes.Buffer
	srv := serve(t, config{otelStdout: true}, &spans)
	srv.CallTool("shop_get_product", map[string]any{"id": "p-9999"}).ExpectError(envelope.NotFound)
	for _, want := range []string{`"Name": "tools/call shop_get_product"`, `"mcpguard.error_type"`, `"not_found"`, `"jsonrpc.request.id"`} {
		if !bytes.Contains(spans.Bytes(), []byte(want)) {
			t.Errorf("span output lacks %s:\n%s", want, spans.String())
		}
	}
}

// shop-server -sdk go-sdk -otel-stdout -rate 5: the same span as on mcp-go
// for a failed call, and the rate limit's refusal traced as such.
func TestOtelStdoutFlagOnGoSDK(t *testing.T) {
	store, err := shop.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	c := config{sdk: sdkGoSDK, otelStdout: true, rate: 5}
	var spans bytes.Buffer
	opts, shutdown, err := shopOptions(c, slog.New(slog.DiscardHandler), &spans)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(shutdown)
	s, flush, err := goSDKServer(c, store, opts, &spans)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(flush)
	sess := gosdktest.Connect(t, s)
	sess.Call("shop_get_product", map[string]any{"id": "p-9999"}).ExpectError(envelope.NotFound)
	for _, want := range []string{`"Name": "tools/call shop_get_product"`, `"mcpguard.error_type"`, `"not_found"`, `"jsonrpc.request.id"`} {
		if !bytes.Contains(spans.Bytes(), []byte(want)) {
			t.Errorf("span output lacks %s:\n%s", want, spans.String())
		}
	}
	var refused bool
	for range 10 {
		if r := sess.Call("shop_get_schema", nil); r.IsError() {
			r.ExpectError(envelope.ExecutionFailed)
			refused = true
			break
		}
	}
	if !refused {
		t.Fatal("10 calls at once under -rate 5: none refused")
	}
	if !bytes.Contains(spans.Bytes(), []byte(`"execution_failed"`)) {
		t.Errorf("the refusal is not traced:\n%s", spans.String())
	}
}
