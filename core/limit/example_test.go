package limit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
)

// A front asks the buckets about each call and renders a refusal like any
// other error.
func ExampleRate_Allow() {
	buckets := limit.NewRate(rate.Every(time.Hour), 1, limit.DefaultMaxKeys)
	ctx := limit.ContextWithRemoteAddr(context.Background(), "192.0.2.7:51234")
	now := time.Now()
	for range 2 {
		if err := buckets.Allow("", limit.Key(ctx), now); err != nil {
			env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_search"}, err)
			fmt.Println(env.ErrorType, env.Retryable, env.RetryAfterMS)
			continue
		}
		fmt.Println("allowed")
	}
	// Output:
	// allowed
	// execution_failed true 3600000
}

// A slot released with the answer a timeout gave stays taken until the
// handler that answer stands for has returned.
func ExampleDetach() {
	slots := limit.NewSlots(1, false, 0)
	ctx := context.Background()
	slot, _ := slots.Acquire(ctx, "shop_search")

	answer := new(string) // the timeout's answer, as the front's result
	late := limit.Detach(answer)
	slot.Release(answer)
	_, err := slots.Acquire(ctx, "shop_search")
	fmt.Println(err != nil)

	late.Finish() // the handler returned
	_, err = slots.Acquire(ctx, "shop_search")
	fmt.Println(err != nil)
	// Output:
	// true
	// false
}

// unreachable is a store whose every call fails, as a Redis that is down.
type unreachable struct{}

func (unreachable) Limiter(rate.Limit, int) limit.Limiter { return unreachable{} }
func (unreachable) Take(context.Context, string, string) (time.Duration, bool, error) {
	return 0, false, errors.New("dial tcp 10.0.0.7:6379: connection refused")
}

// A rate limit on a store that cannot decide allows the call (fail open)
// or refuses it with a retryable envelope (fail closed); neither says
// anything about the store to the client.
func ExampleNewShared() {
	quiet := slog.New(slog.DiscardHandler)
	open := limit.NewShared(unreachable{}, 10, 10, limit.StoreOptions{Logger: quiet})
	closed := limit.NewShared(unreachable{}, 10, 10, limit.StoreOptions{Logger: quiet, FailClosed: true})
	ctx := context.Background()
	fmt.Println(open.Allow(ctx, "shop_search", "alice"))
	env := envelope.NewRenderer().Error(ctx, envelope.Call{Tool: "shop_search"}, closed.Allow(ctx, "shop_search", "alice"))
	fmt.Println(env.ErrorType, env.Retryable, env.RetryAfterMS)
	// Output:
	// <nil>
	// execution_failed true 1000
}

// A front re-exports the options for its request type and asks the
// evaluated Options for what each layer needs; here the request is the
// caller's name, and the key function reads it.
func ExampleEvaluate() {
	type request struct{ caller string }
	byCaller := func(_ context.Context, r request) string { return r.caller }
	o := limit.Evaluate(byCaller, []limit.Option[request]{
		limit.WithToolTimeout[request]("shop_report", time.Minute),
		limit.WithMaxWait[request](0),
	})
	allow := o.Rate(rate.Every(time.Hour), 1)
	ctx := context.Background()
	fmt.Println(allow(ctx, "", request{"alice"}) == nil, allow(ctx, "", request{"bob"}) == nil,
		allow(ctx, "", request{"alice"}) == nil)
	timeout := o.Timeouts(5 * time.Second)
	fmt.Println(timeout("shop_report"), timeout("shop_search"))

	slots := o.Slots(1)
	refuse := func(err error) string { return envelope.CodeOf(err).String() }
	res, _ := limit.Hold(ctx, slots, "shop_search", func() (string, error) {
		inner, _ := limit.Hold(ctx, slots, "shop_search", func() (string, error) { return "ran", nil }, refuse)
		return "outer ran, inner " + inner, nil
	}, refuse)
	fmt.Println(res)
	// Output:
	// true true false
	// 1m0s 5s
	// outer ran, inner execution_failed
}
