package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/example/shop"
	"github.com/mcpguard/mcpguard/gosdk"
	gosdklimit "github.com/mcpguard/mcpguard/gosdk/limit"
	"github.com/mcpguard/mcpguard/limit"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/redisstore"
)

// rateConfig is how -rate keys its buckets and where it keeps them.
type rateConfig struct {
	store      string // "" (in process) or a redis:// URL
	key        string // one of the rateKey values; "" is rateKeyPrincipal
	failClosed bool
	failOpen   bool
	replicas   int           // 0 or 1: each replica gets the full rate while Redis is away
	timeout    time.Duration // 0: limit.DefaultStoreTimeout
	hold       time.Duration // how long a 2026-07-28 client's refused call is held; 0: refused at once
	given      []string      // the flags given on the command line
}

// The -rate-key values.
const (
	rateKeyPrincipal = "principal"
	rateKeyGlobal    = "global"
	rateKeySession   = "session"
)

// rateFlags declares the flags of rateConfig on fs.
func rateFlags(fs *flag.FlagSet) *rateConfig {
	c := &rateConfig{}
	fs.StringVar(&c.store, "rate-store", "", "keep -rate's buckets in this Redis (redis://host:port), shared by every replica that uses it; none: in process")
	fs.StringVar(&c.key, "rate-key", rateKeyPrincipal, "what -rate keys its buckets by: "+rateKeyPrincipal+" (the caller: its principal, else its remote address), "+
		rateKeyGlobal+" (one bucket for everyone), or "+rateKeySession+" (the MCP session, which a client can mint: for trusted clients only)")
	fs.BoolVar(&c.failClosed, "rate-fail-closed", false, "with -rate-store, refuse calls once Redis has not answered for a second (default: a bucket in this process decides the calls Redis misses)")
	fs.BoolVar(&c.failOpen, "rate-fail-open", false, "with -rate-store, allow every call Redis misses: no limit while Redis is away (default: a bucket in this process decides them)")
	fs.IntVar(&c.replicas, "rate-store-replicas", 1, "with -rate-store, how many replicas share Redis: while Redis is away, each allows its share of -rate (default: the full rate each)")
	fs.DurationVar(&c.timeout, "rate-store-timeout", limit.DefaultStoreTimeout, "with -rate-store, how long a call waits for Redis's verdict before deciding without it")
	fs.DurationVar(&c.hold, "rate-hold", limit.DefaultHoldCap, "how long a call of a client on MCP 2026-07-28 that -rate refuses is held until a token comes, instead of a refusal that costs its model a turn; 0: refused at once")
	return c
}

// needsStore are the flags that change nothing without -rate-store.
var needsStore = []string{"rate-fail-closed", "rate-fail-open", "rate-store-timeout", "rate-store-replicas"}

// check reports rate flags that make no sense, or that change nothing:
// limiting is whether -rate is on.
func (c rateConfig) check(limiting bool) error {
	for _, name := range c.given {
		switch {
		case !limiting && strings.HasPrefix(name, "rate-"):
			return fmt.Errorf("-%s does nothing without -rate: give -rate N (calls per second) too, or leave -%s out", name, name)
		case c.store == "" && slices.Contains(needsStore, name):
			return fmt.Errorf("-%s does nothing without -rate-store: the buckets in this process always decide; give -rate-store redis://host:port too, or leave -%s out", name, name)
		}
	}
	switch {
	case c.failOpen && c.failClosed:
		return errors.New("-rate-fail-open and -rate-fail-closed contradict each other: give one of them, or neither for the local bucket")
	case c.store != "" && c.replicas < 1:
		return fmt.Errorf("-rate-store-replicas must be at least 1, not %d", c.replicas)
	case c.key != "" && c.key != rateKeyPrincipal && c.key != rateKeyGlobal && c.key != rateKeySession:
		return fmt.Errorf("-rate-key %q: want %s, %s or %s", c.key, rateKeyPrincipal, rateKeyGlobal, rateKeySession)
	case c.store != "" && !strings.HasPrefix(c.store, "redis://") && !strings.HasPrefix(c.store, "rediss://"):
		return fmt.Errorf("-rate-store %q: want a redis:// URL", c.store)
	case c.timeout < 0:
		return errors.New("-rate-store-timeout must not be negative")
	case c.hold < 0:
		return errors.New("-rate-hold must not be negative")
	}
	return nil
}

// rateOptions are the shop options of a limit of perSec calls per second
// in bursts of as many, on both SDKs, and a function that closes its
// store.
func rateOptions(perSec float64, c rateConfig) ([]shop.Option, func(), error) {
	r, burst := rate.Limit(perSec), max(1, int(perSec))
	mcpGo := []limit.Option{limit.WithHoldCap(c.hold)}
	goSDK := []gosdklimit.Option{gosdklimit.WithHoldCap(c.hold)}
	switch c.key {
	case rateKeyGlobal:
		mcpGo = append(mcpGo, limit.WithKey(func(context.Context, mcpgo.CallToolRequest) string { return "" }))
		goSDK = append(goSDK, gosdklimit.WithKey(func(context.Context, *gomcp.CallToolRequest) string { return "" }))
	case rateKeySession:
		mcpGo = append(mcpGo, limit.WithKey(mcpGoSession))
		goSDK = append(goSDK, gosdklimit.WithKey(goSDKSession))
	}
	closeStore := func() {}
	if c.store != "" {
		store, err := redisstore.Open(c.store)
		if err != nil {
			return nil, nil, err
		}
		closeStore = store.Close
		mcpGo = append(mcpGo, limit.WithStore(store))
		goSDK = append(goSDK, gosdklimit.WithStore(store))
		if c.timeout > 0 {
			mcpGo = append(mcpGo, limit.WithStoreTimeout(c.timeout))
			goSDK = append(goSDK, gosdklimit.WithStoreTimeout(c.timeout))
		}
		switch {
		case c.failClosed:
			mcpGo = append(mcpGo, limit.WithFailClosed())
			goSDK = append(goSDK, gosdklimit.WithFailClosed())
		case c.failOpen:
			mcpGo = append(mcpGo, limit.WithFailOpen())
			goSDK = append(goSDK, gosdklimit.WithFailOpen())
		}
		if c.replicas > 1 {
			mcpGo = append(mcpGo, limit.WithStoreReplicas(c.replicas))
			goSDK = append(goSDK, gosdklimit.WithStoreReplicas(c.replicas))
		}
	}
	return []shop.Option{
		shop.WithChainOptions(middleware.WithLimits(limit.Rate(r, burst, mcpGo...))),
		shop.WithGoSDKOptions(gosdk.WithLimits(gosdklimit.Rate(r, burst, goSDK...))),
	}, closeStore, nil
}

func mcpGoSession(ctx context.Context, _ mcpgo.CallToolRequest) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

func goSDKSession(_ context.Context, req *gomcp.CallToolRequest) string {
	if req != nil && req.Session != nil {
		return req.Session.ID()
	}
	return ""
}
