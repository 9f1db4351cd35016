package redisstore_test

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/limit"
	"github.com/mcpguard/mcpguard/redisstore"
)

// Two replicas, each with its own connection to one Redis, share one
// bucket of 2 calls an hour: the second replica's third call overall is
// refused, with the wait until the next token. A front does the same
// with limit.WithStore(store).
func Example() {
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	replica := func() *limit.Shared {
		store, err := redisstore.Open(shared.URL(), redisstore.WithPrefix("example:"))
		if err != nil {
			panic(err)
		}
		closers = append(closers, store.Close)
		return limit.NewShared(store, rate.Every(time.Hour), 2, limit.StoreOptions{Timeout: time.Second})
	}
	a, b := replica(), replica()
	ctx := context.Background()
	fmt.Println(a.Allow(ctx, "", "alice"))
	fmt.Println(b.Allow(ctx, "", "alice"))
	err := b.Allow(ctx, "", "alice")
	fmt.Println(err)
	// Output:
	// <nil>
	// <nil>
	// Rate limit reached: this server accepts 0.000278 calls per second from one caller, in bursts of at most 2.
}
