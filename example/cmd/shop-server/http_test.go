package main

import (
	"context"
	"github.com/mcpguard/mcpguard/limit"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
)

// serveHTTPFront serves the shop as shop-server -http does with c, on
// loopback, and returns its URL.
func serveHTTPFront(t *testing.T, c config) string {
	t.Helper()
	store, err := shop.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	opts, shutdown, err := shopOptions(c, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(shutdown)
	var h http.Handler
	var stop func(context.Context) error
	if c.sdk == sdkGoSDK {
		h, stop = goSDKHTTP(shop.NewGoSDKServer(store, opts...), &http.Server{})
	} else {
		h, stop = mcpGoHTTP(shop.NewServer(store, opts...), &http.Server{})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { _ = stop(context.Background()); ts.Close() })
	return ts.URL + "/mcp"
}

// from is an HTTP client whose connections come from the loopback address
// ip.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

func connect(t *testing.T, url string, c *http.Client) *gosdktest.Session {
	return gosdktest.Dial(t, &gomcp.StreamableClientTransport{Endpoint: url, HTTPClient: c, DisableStandaloneSSE: true})
}

// TestRateFlagRefusesABurstOverHTTPOnBothFronts: shop-server -http
// -rate 5, on either SDK, answers a burst over the rate with envelopes that
// carry retry_after_ms.
func TestRateFlagRefusesABurstOverHTTPOnBothFronts(t *testing.T) {
	for _, sdk := range []string{sdkMCPGo, sdkGoSDK} {
		t.Run(sdk, func(t *testing.T) {
			c := config{rate: 5, sdk: sdk}
			if err := c.check(); err != nil {
				t.Fatal(err)
			}
			s := connect(t, serveHTTPFront(t, c), nil)
			refusals := 0
			for range 15 {
				r := s.Call("shop_get_schema", nil)
				if !r.IsError() {
					continue
				}
				refusals++
				r.ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached").ExpectNextStep("retry_after_ms")
				if r.Envelope == nil || r.Envelope.RetryAfterMS <= 0 || !r.Envelope.Retryable {
					t.Fatalf("want a retryable refusal with retry_after_ms, got %s", r.Raw)
				}
			}
			// 15 calls take far less than the 2 s in which 10 tokens come back.
			if refusals == 0 {
				t.Fatal("a burst of 15 calls over a rate of 5 per second was never refused")
			}
		})
	}
}

// TestRateHoldFlagAbsorbsABurstOverHTTPOnBothFronts: with -rate-hold (the
// flag's default, 3 s), the same burst from a client on 2026-07-28 is held
// until tokens come, and every call succeeds. go-sdk v1.8.0's client
// negotiates 2026-07-28 with the mcp-go front, and falls back to
// 2025-11-25 with the go-sdk front's stateful HTTP handler (its
// server/discover is not served there): that client's answers are
// unchanged, refusals with retry_after_ms.
func TestRateHoldFlagAbsorbsABurstOverHTTPOnBothFronts(t *testing.T) {
	for sdk, version := range map[string]string{sdkMCPGo: "2026-07-28", sdkGoSDK: "2025-11-25"} {
		t.Run(sdk, func(t *testing.T) {
			t.Parallel()
			c := config{rate: 5, sdk: sdk, rateStore: rateConfig{hold: limit.DefaultHoldCap}}
			if err := c.check(); err != nil {
				t.Fatal(err)
			}
			s := connect(t, serveHTTPFront(t, c), nil)
			if got := s.ClientSession().InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			refusals := 0
			for range 8 { // 5 in the burst, then one each 200 ms: within the hold
				if r := s.Call("shop_get_schema", nil); r.IsError() {
					r.ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
					refusals++
				}
			}
			if held := version >= "2026-07-28"; held != (refusals == 0) {
				t.Errorf("%s client: %d of 8 calls refused", version, refusals)
			}
		})
	}
}

// TestRateFlagKeysHTTPCallersByAddressOnBothFronts: with -http -rate, a
// caller that opens a new session is the same caller, and a caller from
// another address has a budget of its own, on either SDK.
func TestRateFlagKeysHTTPCallersByAddressOnBothFronts(t *testing.T) {
	for _, sdk := range []string{sdkMCPGo, sdkGoSDK} {
		t.Run(sdk, func(t *testing.T) {
			url := serveHTTPFront(t, config{rate: 0.2, sdk: sdk}) // one call, then one every 5 s
			connect(t, url, from("127.0.0.1")).Call("shop_get_schema", nil).ExpectSuccess()
			r := connect(t, url, from("127.0.0.1")).Call("shop_get_schema", nil).
				ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
			if r.Envelope == nil || r.Envelope.RetryAfterMS <= 0 {
				t.Fatalf("want retry_after_ms, got %s", r.Raw)
			}

			other := from("127.0.0.2")
			conn, err := other.Transport.(*http.Transport).DialContext(context.Background(), "tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
			if err != nil {
				t.Skipf("no second loopback address here: %v", err)
			}
			_ = conn.Close()
			connect(t, url, other).Call("shop_get_schema", nil).ExpectSuccess()
		})
	}
}

func TestFlagsThatDoNotGoTogether(t *testing.T) {
	if err := (config{sdk: sdkGoSDK, rate: 5, otelStdout: true}).check(); err != nil {
		t.Errorf("-sdk go-sdk -otel-stdout -rate 5: %v", err)
	}
	for _, c := range []config{{sdk: "other"}, {sdk: sdkMCPGo, rate: -1}} {
		if c.check() == nil {
			t.Errorf("%+v: accepted", c)
		}
	}
}
