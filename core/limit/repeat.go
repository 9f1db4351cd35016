package limit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// The defaults of the repeated-failure guard ([NewRepeats]). Agents were
// seen repeating a failing tool call up to 90 times with the same
// arguments (hermes-agent #10447, #10776), and one client called 8,000
// times in 7 hours with an expired token (longbridge-mcp #141). A failure
// that cannot succeed unchanged will fail again: three runs are enough
// to tell a lasting failure from a race (a resource created between two
// calls), and ten minutes is longer than an agent's retry loop but short
// enough that a fixed cause (a renewed token, a restored record) is
// tried again soon without any change.
const (
	DefaultRepeatFailures = 3
	DefaultRepeatWindow   = 10 * time.Minute
	// DefaultRepeatMaxKeys bounds the failed calls the in-process guard
	// remembers: at most about 2 KB each (a 32-byte digest, the code and
	// up to RepeatMaxSteps steps of RepeatMaxStepBytes), 20 MB in all.
	DefaultRepeatMaxKeys = 10_000
)

// RepeatMaxSteps and RepeatMaxStepBytes bound the next steps a guard
// keeps of a failure, to repeat them when it answers for the call; a
// longer step is left out.
const (
	RepeatMaxSteps     = 4
	RepeatMaxStepBytes = 500
)

// Failure is what a failed call answered, as a guard keeps it: its code
// and its next steps.
type Failure struct {
	Code  envelope.Code
	Steps []string
}

// Repeated reports whether a failure of code, retryable or not, counts
// towards the guard: one the identical call cannot overcome (invalid
// arguments, a missing resource, a denied access, missing credentials, a
// server misconfigured). A retryable failure never counts, nor does
// execution_failed or internal_error, which a repeat may overcome.
func Repeated(code envelope.Code, retryable bool) bool {
	if retryable {
		return false
	}
	switch code {
	case envelope.ValidationError, envelope.NotFound, envelope.AccessDenied,
		envelope.AuthenticationFailed, envelope.ConfigurationError:
		return true
	}
	return false
}

// A RepeatStore keeps the failures of the repeated-failure guard where
// every replica of a server shares them (github.com/mcpguard/mcpguard/redisstore).
// Keys are digests: 32 bytes whatever the call. Its methods must return
// by ctx's deadline and be safe for concurrent use.
type RepeatStore interface {
	// Failures returns how many failures of the call digest names are
	// recorded, and the last of them; 0 when none or when they expired.
	Failures(ctx context.Context, digest string) (n int, last Failure, err error)
	// Fail records one more failure of the call digest names, all of
	// them forgotten window after this one.
	Fail(ctx context.Context, digest string, f Failure, window time.Duration) error
}

// Repeats is the repeated-failure guard: it counts, per caller, the
// failures of identical calls (same tool, same arguments, by digest) that
// cannot succeed unchanged ([Repeated]), and answers the next identical
// call itself once n of them fell within the window, without running the
// handler. A front asks [Repeats.Check] before a call and
// [Repeats.Record] after a failed one. In process it keeps at most
// maxKeys digests and allocates nothing while no call has failed; on a
// [RepeatStore] it asks the store before every call, and runs the call
// when the store does not answer in time. It is safe for concurrent use.
type Repeats struct {
	n       int
	window  time.Duration
	store   RepeatStore
	timeout time.Duration
	mem     *repeatMemory
}

// NewRepeats returns the guard of n failures in window, in process
// (store nil, at most maxKeys calls remembered) or in store, each store
// call bounded by timeout (0: DefaultStoreTimeout). It panics unless
// n >= 1, window > 0, maxKeys >= 1 and timeout >= 0.
func NewRepeats(n int, window time.Duration, store RepeatStore, maxKeys int, timeout time.Duration) *Repeats {
	if n < 1 || window <= 0 || maxKeys < 1 || timeout < 0 {
		panic(fmt.Sprintf("limit: NewRepeats(%d, %s, %d, %s): need at least 1 failure, a positive window, room for a call and a timeout of at least 0", n, window, maxKeys, timeout))
	}
	if timeout == 0 {
		timeout = DefaultStoreTimeout
	}
	g := &Repeats{n: n, window: window, store: store, timeout: timeout}
	if store == nil {
		g.mem = &repeatMemory{max: maxKeys, m: make(map[string]*repeatEntry)}
	}
	return g
}

// Idle reports that no call has failed in process, so that [Repeats.Check]
// would run every call: a front need not read the call's arguments.
func (g *Repeats) Idle() bool { return g.mem != nil && g.mem.n.Load() == 0 }

// Digest names the call of tool with args by caller key: the SHA-256
// digest of the three, each but the last preceded by its length, as 32
// bytes of a string.
func Digest(key, tool string, args []byte) string {
	h := sha256.New()
	var n [8]byte
	for _, s := range [...]string{key, tool} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		_, _ = io.WriteString(h, s)
	}
	h.Write(args)
	return string(h.Sum(nil))
}

// Check returns nil to run the call of tool with args by caller key, or
// the error to answer it with, without running it: its failure's code,
// not retryable, a message that says it already failed that many times
// with these arguments, and the failure's own next steps.
func (g *Repeats) Check(ctx context.Context, key, tool string, args []byte) error {
	if g.Idle() {
		return nil
	}
	d := Digest(key, tool, args)
	var (
		n    int
		last Failure
	)
	if g.mem != nil {
		n, last = g.mem.failures(d, time.Now())
	} else {
		sctx, cancel := context.WithTimeout(ctx, g.timeout)
		var err error
		n, last, err = g.store.Failures(sctx, d)
		cancel()
		if err != nil {
			return nil // the guard saves work; without its store, the call runs
		}
	}
	if n < g.n {
		return nil
	}
	return repeatRefusal(tool, n, g.window, last)
}

// Record counts a failure of the call of tool with args by caller key,
// if [Repeated] says it counts.
func (g *Repeats) Record(ctx context.Context, key, tool string, args []byte, code envelope.Code, retryable bool, steps []string) {
	if !Repeated(code, retryable) {
		return
	}
	f := Failure{Code: code, Steps: keepSteps(steps)}
	d := Digest(key, tool, args)
	if g.mem != nil {
		g.mem.fail(d, f, time.Now(), g.window)
		return
	}
	sctx, cancel := context.WithTimeout(ctx, g.timeout)
	_ = g.store.Fail(sctx, d, f, g.window)
	cancel()
}

// keepSteps bounds what a guard keeps of a failure's steps: the first
// RepeatMaxSteps of at most RepeatMaxStepBytes each (a longer one is
// left out rather than cut).
func keepSteps(steps []string) []string {
	out := make([]string, 0, min(len(steps), RepeatMaxSteps))
	for _, s := range steps {
		if len(out) == RepeatMaxSteps {
			break
		}
		if len(s) <= RepeatMaxStepBytes {
			out = append(out, s)
		}
	}
	return out
}

// repeatRefusal is the answer to a call that already failed n times.
func repeatRefusal(tool string, n int, window time.Duration, last Failure) error {
	times := fmt.Sprintf("%d times", n)
	if n == 1 {
		times = "once"
	}
	msg := fmt.Sprintf("This call of %s already failed %s with these arguments (%s), so it was not run again: repeated unchanged it fails the same way. It runs again with other arguments, or unchanged once %s have passed without another failure.",
		tool, times, last.Code, window)
	code := last.Code
	if !code.Valid() {
		code = envelope.ValidationError
	}
	steps := append([]string{"Do not repeat this call unchanged: change what the earlier failure's next steps below name, or ask the user."}, last.Steps...)
	return envelope.SetRetryable(envelope.ReplaceNextSteps(envelope.New(code, msg), steps...), false)
}

// repeatMemory is the in-process store of a guard.
type repeatMemory struct {
	n         atomic.Int64 // entries, for Idle
	mu        sync.Mutex
	max       int
	m         map[string]*repeatEntry
	lastSweep int64
}

type repeatEntry struct {
	n     int
	last  Failure
	until int64 // UnixNano: forgotten then
}

func (r *repeatMemory) failures(d string, now time.Time) (int, Failure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[d]
	if !ok {
		return 0, Failure{}
	}
	if now.UnixNano() >= e.until {
		delete(r.m, d)
		r.n.Store(int64(len(r.m)))
		return 0, Failure{}
	}
	return e.n, e.last
}

func (r *repeatMemory) fail(d string, f Failure, now time.Time, window time.Duration) {
	ns := now.UnixNano()
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.m[d]
	if ok && ns >= e.until {
		e.n = 0
	}
	if !ok {
		r.sweep(ns, len(r.m) >= r.max)
		if len(r.m) >= r.max {
			return // full of live failures: this one is not remembered
		}
		e = &repeatEntry{}
		r.m[d] = e
		r.n.Store(int64(len(r.m)))
	}
	e.n++
	e.last = f
	e.until = ns + int64(window)
}

// sweep drops expired entries: at most once a second when full, else
// every ten.
func (r *repeatMemory) sweep(ns int64, full bool) {
	every := sweepEvery
	if full {
		every = fullSweepEvery
	}
	if ns-r.lastSweep < every {
		return
	}
	r.lastSweep = ns
	for d, e := range r.m {
		if ns >= e.until {
			delete(r.m, d)
		}
	}
	r.n.Store(int64(len(r.m)))
}
