package limit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A breaker on a fake clock, its probes run inline: the store is probed
// 100 ms after it failed, then twice as long after each failed probe, up
// to 2 s; the log has one record when the outage starts, one per
// StoreLogEvery with the count of calls decided without the store, and
// one when it ends.
func TestBreakerBacksOffAndLogsTheOutageOnce(t *testing.T) {
	var log bytes.Buffer
	clock := time.Unix(1e9, 0)
	refused := errors.New("connection refused")
	answer, probes := refused, 0
	b := newBreaker(rateOutage, time.Second, slog.New(slog.NewTextHandler(&log, nil)), func(context.Context) error {
		probes++
		return answer
	})
	b.now = func() time.Time { return clock }
	b.start = func(probe func()) { probe() }
	ctx := context.Background()

	if !b.up() {
		t.Fatal("a new breaker asks its store")
	}
	b.failed(ctx, context.DeadlineExceeded, slog.String("tool", "shop_search"))
	if b.up() {
		t.Fatal("a store that timed out is down")
	}
	b.failed(ctx, context.DeadlineExceeded) // a call asked before it was down
	calls := int64(2)
	start := clock
	last := error(context.DeadlineExceeded)
	for i, gap := range []time.Duration{100, 200, 400, 800, 1600, 2000, 2000, 2000, 2000} {
		clock = clock.Add(gap*time.Millisecond - time.Millisecond)
		if err := b.skip(); !errors.Is(err, last) || probes != i {
			t.Fatalf("%s after probe %d: %d probes, want %d; the hook's error %v, want %v", gap-1, i, probes, i, err, last)
		}
		clock = clock.Add(time.Millisecond)
		b.skip()
		if probes != i+1 {
			t.Fatalf("%s after probe %d: %d probes, want %d", gap, i, probes, i+1)
		}
		calls += 2
		last = refused
	}
	if got := strings.Count(log.String(), `msg="`+StoreStillDownLogMessage+`"`); got != 1 {
		t.Fatalf("in %s, want 1 record of the count, got %d:\n%s", clock.Sub(start), got, log.String())
	}
	if !strings.Contains(log.String(), `decided_without_store=`) {
		t.Fatalf("the record has no count:\n%s", log.String())
	}
	answer = nil
	clock = clock.Add(probeMax)
	b.skip()
	if !b.up() {
		t.Fatal("a store that answered a probe is up")
	}
	for _, want := range []string{
		`level=WARN msg="mcpguard: rate-limit store unavailable" tool=shop_search error="context deadline exceeded"`,
		`level=WARN msg="mcpguard: rate-limit store still unavailable" decided_without_store=`,
		`level=INFO msg="mcpguard: rate-limit store available again" duration=13.1s decided_without_store=`,
	} {
		if strings.Count(log.String(), want) != 1 {
			t.Errorf("want one record %q:\n%s", want, log.String())
		}
	}
	if n := strings.Count(log.String(), "\n"); n != 3 {
		t.Errorf("want 3 records of the outage, got %d:\n%s", n, log.String())
	}
	var counted int64
	for _, m := range regexp.MustCompile(`decided_without_store=(\d+)`).FindAllStringSubmatch(log.String(), -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		counted += n
	}
	if counted != calls+1 {
		t.Errorf("the records count %d calls decided without the store, want %d", counted, calls+1)
	}
}
