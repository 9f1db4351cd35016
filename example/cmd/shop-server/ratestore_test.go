package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/gosdk"
	"github.com/mcpguard/mcpguard/gosdk/gosdktest"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

// TestRateStoreFlagSharesOneBucketBetweenReplicas: two shops on one Redis,
// -rate 1 -rate-key global -rate-store redis://…, have one bucket between
// them: the call the first allowed empties it for the second, on either
// SDK.
func TestRateStoreFlagSharesOneBucketBetweenReplicas(t *testing.T) {
	srv := redistest.Start(t)
	c := config{rate: 1, rateStore: rateConfig{store: srv.URL(), key: rateKeyGlobal, timeout: time.Second}}
	replica := func() []shop.Option {
		opts, shutdown, err := shopOptions(c, slog.New(slog.DiscardHandler), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(shutdown)
		return opts
	}
	store, err := shop.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	a := middlewaretest.FromServer(t, shop.NewServer(store, replica()...))
	b := middlewaretest.FromServer(t, shop.NewServer(store, replica()...))
	a.CallTool("shop_get_schema", nil).ExpectSuccess()
	r := b.CallTool("shop_get_schema", nil).ExpectError(envelope.ExecutionFailed).ExpectMessage("Rate limit reached")
	if r.Envelope == nil || r.Envelope.RetryAfterMS <= 0 || r.Envelope.RetryAfterMS > 1000 {
		t.Fatalf("want retry_after_ms within a second: %s", r.Raw)
	}
	g := gosdkFront(t, store, replica())
	g.Call("shop_get_schema", nil).ExpectError(gosdk.ExecutionFailed).ExpectMessage("Rate limit reached")
}

func TestRateStoreFlagsThatMakeNoSense(t *testing.T) {
	for _, c := range []rateConfig{
		{key: "tenant", timeout: time.Second},
		{key: rateKeyGlobal, store: "http://127.0.0.1:6379", timeout: time.Second},
		{key: rateKeyGlobal, timeout: -time.Second},
	} {
		if err := (config{sdk: sdkMCPGo, rateStore: c}).check(); err == nil || !strings.HasPrefix(err.Error(), "-rate-") {
			t.Errorf("%+v: want an error naming the flag, got %v", c, err)
		}
	}
	if _, _, err := shopOptions(config{rate: 1, rateStore: rateConfig{store: "redis://127.0.0.1:1", key: rateKeyGlobal, timeout: time.Second}},
		slog.New(slog.DiscardHandler), nil); err == nil {
		t.Error("a Redis that cannot be reached at start is an error, not a server without its limit")
	}
}

// TestRateFlagsThatDoNothingAreRefused: a -rate-* flag that would change
// nothing is refused with a sentence that names it and says what to do,
// from the command line as a user types it.
func TestRateFlagsThatDoNothingAreRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-rate-store", "redis://127.0.0.1:6379"}, "-rate-store does nothing without -rate"},
		{[]string{"-rate-key", "global"}, "-rate-key does nothing without -rate"},
		{[]string{"-rate", "5", "-rate-fail-closed"}, "-rate-fail-closed does nothing without -rate-store"},
		{[]string{"-rate", "5", "-rate-fail-open"}, "-rate-fail-open does nothing without -rate-store"},
		{[]string{"-rate", "5", "-rate-store-timeout", "1s"}, "-rate-store-timeout does nothing without -rate-store"},
		{[]string{"-rate", "5", "-rate-store-replicas", "3"}, "-rate-store-replicas does nothing without -rate-store"},
		{[]string{"-rate", "5", "-rate-store", "redis://127.0.0.1:6379", "-rate-fail-open", "-rate-fail-closed"}, "-rate-fail-open and -rate-fail-closed contradict each other"},
		{[]string{"-rate", "5", "-rate-store", "redis://127.0.0.1:6379", "-rate-store-replicas", "0"}, "-rate-store-replicas must be at least 1"},
	} {
		c0, err := parseFlags(c.args)
		if err == nil {
			err = c0.check()
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: want %q..., got %v", c.args, c.want, err)
		}
	}
	for _, ok := range [][]string{
		{"-rate", "5"},
		{"-rate", "5", "-rate-key", "global", "-rate-store", "redis://127.0.0.1:6379", "-rate-fail-closed", "-rate-store-timeout", "1s", "-rate-store-replicas", "3"},
		{"-rate", "5", "-rate-store", "redis://127.0.0.1:6379", "-rate-fail-open"},
	} {
		c, err := parseFlags(ok)
		if err == nil {
			err = c.check()
		}
		if err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// gosdkFront is a client of the go-sdk shop with opts, in memory.
func gosdkFront(t *testing.T, store *shop.Store, opts []shop.Option) *gosdktest.Session {
	t.Helper()
	return gosdktest.Connect(t, shop.NewGoSDKServer(store, opts...))
}
