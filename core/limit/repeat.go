package limit

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/wire"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/str"
)

// The defaults of the repeated-failure guard ([NewRepeats]). Agents were
// seen repeating a failing tool call up to 90 times with the same
// arguments (hermes-agent #10447, #10776), and one client called 8,000
// times in 7 hours with an expired token (longbridge-mcp #141). Three
// runs tell a lasting failure from a race (a resource created between two
// calls). The guard then holds the identical call back for a short wait
// that doubles with each further failure (1 s, 2 s, 4 s … at most a
// minute): long enough to break a tight loop, short enough that an agent
// polling for a file or a job is never held long, and released at once by
// any call of the same caller that succeeds. A call's failures are
// forgotten ten minutes after the last.
const (
	DefaultRepeatFailures   = 3
	DefaultRepeatWindow     = 10 * time.Minute
	DefaultRepeatBackoff    = time.Second
	DefaultRepeatMaxBackoff = time.Minute
	// DefaultRepeatMaxKeys bounds the failed calls the in-process guard
	// remembers, all callers together: about 270 bytes each for a failure
	// with a 100-byte message and one step (TestRepeatsMemoryPerCall), at
	// most about 2.5 KB (a 32-byte digest, the code, a message of up to
	// RepeatMaxMessageBytes and up to RepeatMaxSteps steps of
	// RepeatMaxStepBytes): 3 MB in all, 25 MB at most.
	DefaultRepeatMaxKeys = 10_000
	// RepeatMaxPerCaller bounds the failed calls remembered for one
	// caller: a caller that fails with ever new arguments evicts its own
	// oldest, never another caller's.
	RepeatMaxPerCaller = 256
)

// RepeatMaxSteps, RepeatMaxStepBytes and RepeatMaxMessageBytes bound what
// a guard keeps of a failure, to quote it when it holds a call back: a
// longer step is left out rather than cut; a longer message is cut.
const (
	RepeatMaxSteps        = 4
	RepeatMaxStepBytes    = 500
	RepeatMaxMessageBytes = 500
)

// Failure is what a failed call answered, as a guard keeps it: its code,
// its message (as the client received it, redacted) and its next steps.
type Failure struct {
	Code    envelope.Code `json:"code"`
	Message string        `json:"message,omitempty"`
	Steps   []string      `json:"steps,omitempty"`
}

// Repeated reports whether a failure of code, retryable or not, counts
// towards the guard: one the identical call cannot overcome while nothing
// changes (invalid arguments, a missing resource, a denied access, a
// server misconfigured). A retryable failure never counts, nor does
// authentication_failed (renewing credentials is the fix, and the retry
// that follows must run), execution_failed or internal_error, which a
// repeat may overcome.
func Repeated(code envelope.Code, retryable bool) bool {
	if retryable {
		return false
	}
	switch code {
	case envelope.ValidationError, envelope.NotFound, envelope.AccessDenied, envelope.ConfigurationError:
		return true
	}
	return false
}

// Caller is who a call is from, as the guard scopes its counts: its Key,
// else its Session, else its Credential. A caller with none is one the
// server cannot tell from others (a stateless HTTP server without authentication): its calls
// are never held back nor counted, so that one caller's failures never
// change another's answer.
type Caller struct {
	// Key names the caller: a principal the server authenticated, as
	// [Key] or [PrincipalKey] spell it, or a key of the user's own.
	Key string
	// Session is the caller's MCP session, or its connection where the
	// transport has no session (stdio), for a caller without a Key.
	Session string
	// Credential is the credentials the call came with, as sent (an HTTP
	// Authorization header's value), "" for none: when it changes, the
	// caller's counts start over. Only a digest of it is kept.
	Credential string
}

// Name is the caller's name, as the guard keys its counts in a store:
// its Key, else its Session, else its credentials (MCP 2026-07-28 has no
// session, nor has a stateless server: the credentials a client sends are
// then what tells it apart, and new credentials are a new caller); "" for
// an anonymous caller. It is at most about a hundred bytes, whatever the
// client sent. A consumer that keeps other state per caller (the tools
// mcpguard-proxy was listed for each) keys it by Name, so that it tells
// callers apart as the guard does.
func (c Caller) Name() string {
	switch {
	case c.Key != "":
		return bounded("key\x00", c.Key)
	case c.Session != "":
		return bounded("session\x00", c.Session)
	case c.Credential != "":
		return "credential\x00" + c.credential()
	}
	return ""
}

// maxCallerKey bounds the bytes a caller's name takes in a store: a
// longer key or session ID (a client chooses its Mcp-Session-Id header,
// up to a megabyte) is named by its SHA-256 digest.
const maxCallerKey = 64

func bounded(kind, key string) string {
	if len(key) <= maxCallerKey {
		return kind + key
	}
	sum := sha256.Sum256([]byte(key))
	return kind + "sha256\x00" + string(sum[:])
}

// credential is the fingerprint of the caller's credentials: 16 bytes of
// their SHA-256 digest, "" for none.
func (c Caller) credential() string {
	if c.Credential == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(c.Credential))
	return string(sum[:16])
}

// RepeatCall is one tool call as the guard reads it.
type RepeatCall struct {
	Caller Caller
	Tool   string
	// Args are the call's arguments as JSON, as received; the guard names
	// them by their canonical digest (core/wire), so member order, white
	// space, escapes and 1 against 1.0 make no other call, and every digit
	// of a number counts.
	Args []byte
	// Continued: the call echoes a requestState (multi round-trip). Such
	// a call is never held back nor counted: a refused state says "start
	// over", and starting over must run. Its success releases the
	// caller's counts, as any success does: its first round, an
	// input_required, did not.
	Continued bool
}

// RepeatEntry is what a store holds of one call of one caller.
type RepeatEntry struct {
	// N is how many times the call failed, counting failures within the
	// window of each other.
	N int
	// Last is the last of those failures.
	Last Failure
	// Wait is how long the call is still held back; 0 or less: it runs.
	Wait time.Duration
}

// RepeatPolicy is what a store needs to decide a [RepeatEntry].
type RepeatPolicy struct {
	// N failures hold the call back.
	N int
	// Window: a call's failures are forgotten this long after the last.
	Window time.Duration
	// Backoff is how long the N-th failure holds the call back; each
	// further one doubles it, up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
}

// hold is how long the n-th failure holds the call back.
func (p RepeatPolicy) hold(n int) time.Duration {
	if n < p.N {
		return 0
	}
	d := p.Backoff
	for i := p.N; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// A RepeatStore keeps the guard's counts where every replica of a server
// shares them (github.com/mcpguard/mcpguard/redisstore). Callers and
// digests are opaque strings. Its methods must return by ctx's deadline
// and be safe for concurrent use. A store forgets a caller's counts when
// the caller's credential differs from the one it last saw.
type RepeatStore interface {
	// RepeatEntry returns the caller's entry for the call digest names,
	// and whether the store holds anything at all for the caller (so that
	// a success need not release a caller with nothing to forget).
	RepeatEntry(ctx context.Context, caller, credential, digest string, p RepeatPolicy) (e RepeatEntry, known bool, err error)
	// RepeatFail records one more failure f of the call, and returns the
	// entry it makes.
	RepeatFail(ctx context.Context, caller, credential, digest string, f Failure, p RepeatPolicy) (RepeatEntry, error)
	// RepeatRelease forgets every count of the caller.
	RepeatRelease(ctx context.Context, caller string) error
}

// Repeats is the repeated-failure guard, one stage of a call written once
// here and run by every consumer (the mcp-go and go-sdk fronts, and
// mcpguard-proxy): a consumer asks [Repeats.Admit] before a call and
// settles the [RepeatTicket] it got with what the call answered. See the
// package documentation for its promises. It is safe for concurrent use.
type Repeats struct {
	p       RepeatPolicy
	store   RepeatStore
	mem     *repeatMemory // the store when it is in process, for Idle
	timeout time.Duration
	// breaker keeps a shared store that failed from costing every call
	// its deadline (nil in process): calls run without the guard until a
	// probe finds the store answering.
	breaker *breaker
}

// The messages of the records of a repeat store's outage (see the rate
// limit's [StoreLogMessage]): while it lasts, calls run unguarded.
const (
	RepeatStoreLogMessage          = "mcpguard: repeated-failure store unavailable; calls run unguarded"
	RepeatStoreStillDownLogMessage = "mcpguard: repeated-failure store still unavailable"
	RepeatStoreBackLogMessage      = "mcpguard: repeated-failure store available again"
)

var repeatOutage = outageMessages{down: RepeatStoreLogMessage, still: RepeatStoreStillDownLogMessage, back: RepeatStoreBackLogMessage}

// repeatProbeCaller is the caller a probe of a shared store asks about:
// no caller's key can be it.
const repeatProbeCaller = "probe\x00mcpguard"

// NewRepeats returns the guard of n failures in window, in process
// (store nil, at most maxKeys calls remembered) or in store, each store
// call bounded by timeout (0: DefaultStoreTimeout), holding a call back
// [DefaultRepeatBackoff] doubling to [DefaultRepeatMaxBackoff]. It panics
// unless n >= 1, window > 0, maxKeys >= 1 and timeout >= 0.
func NewRepeats(n int, window time.Duration, store RepeatStore, maxKeys int, timeout time.Duration) *Repeats {
	if n < 1 || window <= 0 || maxKeys < 1 || timeout < 0 {
		panic(fmt.Sprintf("limit: NewRepeats(%d, %s, %d, %s): need at least 1 failure, a positive window, room for a call and a timeout of at least 0", n, window, maxKeys, timeout))
	}
	if timeout == 0 {
		timeout = DefaultStoreTimeout
	}
	g := &Repeats{
		p:       RepeatPolicy{N: n, Window: window, Backoff: DefaultRepeatBackoff, MaxBackoff: DefaultRepeatMaxBackoff},
		store:   store,
		timeout: timeout,
	}
	if store == nil {
		g.mem = newRepeatMemory(maxKeys, time.Now)
		g.store = g.mem
	} else {
		g.breaker = newBreaker(repeatOutage, timeout, nil, func(ctx context.Context) error {
			_, _, err := store.RepeatEntry(ctx, repeatProbeCaller, "", "", g.p)
			return err
		})
	}
	return g
}

// storeUp reports whether the store may be asked; a call that finds it
// down runs unguarded, and says so to the breaker.
func (g *Repeats) storeUp() bool {
	if g.breaker == nil || g.breaker.up() {
		return true
	}
	_ = g.breaker.skip()
	return false
}

// storeFailed notes a store call that failed.
func (g *Repeats) storeFailed(ctx context.Context, tool string, err error) {
	if g.breaker != nil && err != nil {
		g.breaker.failed(ctx, err, slog.String(logkey.Tool, tool))
	}
}

// WithBackoff returns a copy of g that holds a call back for d after its
// n-th failure, doubling with each further one up to maxD. It panics
// unless 0 < d <= maxD.
func (g *Repeats) WithBackoff(d, maxD time.Duration) *Repeats {
	if d <= 0 || maxD < d {
		panic(fmt.Sprintf("limit: Repeats.WithBackoff(%s, %s): need 0 < backoff <= max", d, maxD))
	}
	c := *g
	c.p.Backoff, c.p.MaxBackoff = d, maxD
	return &c
}

// Policy returns g's policy.
func (g *Repeats) Policy() RepeatPolicy { return g.p }

// Idle reports that no call has failed in process, so that every call
// runs and a consumer need not read its caller or arguments.
func (g *Repeats) Idle() bool { return g.mem != nil && g.mem.idle() }

// RepeatTicket is one call admitted by a guard; settle it once the call
// is answered. The zero ticket settles to nothing.
type RepeatTicket struct {
	g      *Repeats
	call   RepeatCall
	digest string
	known  bool // the store holds counts of the caller
}

// Admit returns the ticket of a call that runs, or the error to answer
// it with instead of running it (see [Repeats] for its shape). A nil g
// admits every call. A call whose caller's counts the store cannot tell
// in time runs.
func (g *Repeats) Admit(ctx context.Context, c RepeatCall) (RepeatTicket, error) {
	if g == nil {
		return RepeatTicket{}, nil
	}
	t := RepeatTicket{g: g, call: c}
	if g.Idle() {
		return t, nil
	}
	key := c.Caller.Name()
	if key == "" || (g.mem != nil && !g.mem.knows(key)) {
		return t, nil // nothing to hold back, nothing to release
	}
	if c.Continued {
		// never held back; its success releases, as any success does (the
		// write that completes after the client's confirmation)
		t.known = true
		return t, nil
	}
	if !g.storeUp() {
		return t, nil // the guard saves work; without its store, the call runs
	}
	t.digest, _ = wire.Digest(c.Tool, c.Args)
	sctx, cancel := g.storeContext(ctx)
	e, known, err := g.store.RepeatEntry(sctx, key, c.Caller.credential(), t.digest, g.p)
	cancel()
	if err != nil {
		g.storeFailed(ctx, c.Tool, err)
		t.known = true // it may hold counts: a success releases them
		return t, nil  // the guard saves work; without its store, the call runs
	}
	t.known = known
	if e.N < g.p.N || e.Wait <= 0 {
		return t, nil
	}
	return RepeatTicket{}, heldBack(c.Tool, e)
}

func (g *Repeats) storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if g.mem != nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
}

// Settle records what the ticket's call answered: failure is the
// envelope it failed with, or nil when it is over and did not fail (a
// success, a task). A success releases every count of the caller, a
// continued call's (one that echoes a requestState) too; a failure that
// [Repeated] counts is counted, unless the call continued one. A call
// answered with an input_required round is not settled: it is not over.
// An anonymous caller's failures are not counted.
func (t RepeatTicket) Settle(ctx context.Context, failure *envelope.Envelope) {
	g := t.g
	if g == nil {
		return
	}
	if failure == nil {
		if !t.known {
			return // nothing to release: a success costs no store call
		}
		key := t.call.Caller.Name()
		if key == "" || !g.storeUp() {
			return
		}
		sctx, cancel := g.storeContext(ctx)
		err := g.store.RepeatRelease(sctx, key)
		cancel()
		g.storeFailed(ctx, t.call.Tool, err)
		return
	}
	key := t.call.Caller.Name()
	if key == "" || t.call.Continued || !Repeated(failure.ErrorType, failure.Retryable) || !g.storeUp() {
		return
	}
	if t.digest == "" {
		t.digest, _ = wire.Digest(t.call.Tool, t.call.Args)
	}
	f := Failure{Code: failure.ErrorType, Message: str.Clip(failure.Message, RepeatMaxMessageBytes, " …"), Steps: keepSteps(failure.NextSteps)}
	sctx, cancel := g.storeContext(ctx)
	_, err := g.store.RepeatFail(sctx, key, t.call.Caller.credential(), t.digest, f, g.p)
	cancel()
	g.storeFailed(ctx, t.call.Tool, err)
}

// RepeatStage is the guard as one stage of a consumer whose tool-call
// requests are R: it reads a request's caller and arguments (read) only
// when the guard needs them, so that a call costs an atomic load and no
// allocation while nothing failed. A nil guard admits every call.
type RepeatStage[R any] struct {
	g    *Repeats
	read func(context.Context, R) RepeatCall
}

// NewRepeatStage returns the stage of g for requests read by read. It
// panics on a nil read.
func NewRepeatStage[R any](g *Repeats, read func(context.Context, R) RepeatCall) RepeatStage[R] {
	if read == nil {
		panic("limit: NewRepeatStage with a nil read function")
	}
	return RepeatStage[R]{g: g, read: read}
}

// Guard returns the stage's guard, nil when it is off.
func (s RepeatStage[R]) Guard() *Repeats { return s.g }

// StageTicket is a call admitted by a [RepeatStage].
type StageTicket struct {
	t    RepeatTicket
	read bool // t holds the call as read
}

// Admit returns the ticket of req, or the error to answer it with
// instead of running it ([Repeats.Admit]).
func (s RepeatStage[R]) Admit(ctx context.Context, req R) (StageTicket, error) {
	if s.g == nil || s.g.Idle() {
		return StageTicket{t: RepeatTicket{g: s.g}}, nil
	}
	t, err := s.g.Admit(ctx, s.read(ctx, req))
	return StageTicket{t: t, read: true}, err
}

// Settle settles t, admitted for req, with failure ([RepeatTicket.Settle]).
func (s RepeatStage[R]) Settle(ctx context.Context, t StageTicket, req R, failure *envelope.Envelope) {
	if t.t.g == nil {
		return
	}
	if !t.read {
		if failure == nil && t.t.g.Idle() {
			return
		}
		t.t.call = s.read(ctx, req)
	}
	t.t.Settle(ctx, failure)
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

// heldBack is the answer to a call held back: it did not run, it may run
// after the wait (retryable, retry_after_ms), and it quotes the last real
// failure as what happened before, never as today's answer.
func heldBack(tool string, e RepeatEntry) error {
	times := fmt.Sprintf("%d times", e.N)
	if e.N == 1 {
		times = "once"
	}
	last := e.Last
	code := last.Code
	if !code.Valid() {
		code = envelope.ValidationError
	}
	before := string(code)
	if last.Message != "" {
		before += ": " + last.Message
	}
	msg := fmt.Sprintf("Not run: this call of %s, with these arguments, already failed %s since a call of yours last succeeded, and repeated unchanged it is likely to fail the same way. The last time it ran, it failed with %s",
		tool, times, before)
	wait := (e.Wait + time.Millisecond - 1) / time.Millisecond
	steps := append(make([]string, 0, 2+len(last.Steps)),
		"Change what the earlier failure names before you repeat this call: its next steps follow.")
	steps = append(steps, last.Steps...)
	steps = append(steps, fmt.Sprintf("Unchanged, this call runs again after %d ms (retry_after_ms), or at once after any other call of yours succeeds.", wait))
	err := envelope.New(envelope.ExecutionFailed, msg)
	return envelope.SetRetryAfter(envelope.SetRetryable(envelope.ReplaceNextSteps(err, steps...), true), e.Wait)
}
