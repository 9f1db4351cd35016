package proxy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/core/limit"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/pin"
	"github.com/mcpguard/mcpguard/core/redact"
	"golang.org/x/time/rate"
)

// DefaultTimeout bounds how long a tool call waits for the upstream's
// answer unless [WithTimeout] says otherwise: a server that never answers
// must not leave the agent waiting for ever.
const DefaultTimeout = 2 * time.Minute

// DefaultMaxMessage bounds one JSON-RPC message, either way, unless
// [WithMaxMessage] says otherwise (rpc.DefaultMaxMessage).
const DefaultMaxMessage = rpc.DefaultMaxMessage

// Option configures a [Guard], a [Stdio] proxy or an [HTTP] proxy.
type Option func(*options)

type options struct {
	logger    *slog.Logger
	redactor  *redact.Redactor
	successes bool
	// successRedactor is redactor.ForSuccess(), for WithRedactSuccesses.
	successRedactor *redact.Redactor
	maxMessage      int
	timeout         time.Duration
	rate            *limit.Rate
	ratePerTool     bool // WithRatePerTool
	rawStderr       bool // WithRawChildStderr
	exitWithChild   bool // WithExitWithChild
	slots           *limit.Slots
	hold            holdOptions // WithHoldCap (hold.go)
	envelope        []envelope.Option
	mappings        []Mapping
	rules           []hints.Rule[envelope.Call, json.RawMessage]
	hints           *hints.Registry[envelope.Call, json.RawMessage]
	noDeclared      bool // WithoutDeclaredSchemas
	telemetry       []coreotel.Option
	traced          bool         // WithTelemetry
	state           stateOptions // WithStateKeys, WithoutStateSealing (seal.go)
	repeats         *limit.Repeats
	repeatsSet      bool // WithRepeats; unset: the default guard

	pins  *pin.Pins // WithPins (pin.go)
	calls callLog   // WithCallLog (calllog.go)
}

func evaluate(opts []Option) *options {
	o := &options{maxMessage: DefaultMaxMessage, timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(o)
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	if o.redactor == nil {
		o.redactor = redact.Default()
	}
	if !o.repeatsSet {
		o.repeats = limit.NewRepeats(limit.DefaultRepeatFailures, limit.DefaultRepeatWindow, nil, limit.DefaultRepeatMaxKeys, 0)
	}
	o.successRedactor = o.redactor.ForSuccess()
	return o
}

func (o *options) renderer(more ...envelope.Option) *envelope.Renderer {
	// The upstream's own envelopes keep their next steps: a server that
	// already writes envelopes (one built on mcpguard, say) knows its tools
	// better than the proxy, and dropping its advice would leave the agent
	// worse off behind the proxy than without it.
	opts := append([]envelope.Option{envelope.WithLogger(o.logger), envelope.WithRedactor(o.redactor),
		envelope.WithTrustedEnvelopes()}, o.envelope...)
	opts = append(opts, more...)
	return envelope.NewRenderer(opts...)
}

// WithRepeats replaces the repeated-failure guard the proxy has by
// default, core/limit's NewRepeats(3, 10 minutes), with g, the one every
// consumer runs (repeats.go); nil turns it off.
func WithRepeats(g *limit.Repeats) Option {
	return func(o *options) { o.repeats, o.repeatsSet = g, true }
}

// WithLogger sets the logger of incidents and of what the proxy drops
// (slog.Default by default). Logs go to stderr, never to the client.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithRedactSuccesses redacts successful tool results too (error results
// always are), with the rules of redact.Redactor.ForSuccess: secrets,
// tokens and stack traces go, paths and source positions stay.
func WithRedactSuccesses() Option { return func(o *options) { o.successes = true } }

// WithMaxMessage bounds one message, in bytes, both ways. It panics
// unless n is at least 1 KiB.
func WithMaxMessage(n int) Option {
	if n < 1<<10 {
		panic(fmt.Sprintf("proxy: WithMaxMessage(%d): the bound must be at least 1024 bytes", n))
	}
	return func(o *options) { o.maxMessage = n }
}

// WithTimeout bounds how long a tool call waits for the upstream's answer
// (DefaultTimeout by default); past it the call is answered with a
// retryable execution_failed envelope. It panics unless d > 0.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("proxy: WithTimeout(%s): the timeout must be positive", d))
	}
	return func(o *options) { o.timeout = d }
}

// WithRate admits r tool calls a second per client (over stdio the
// session; over HTTP its network address, core/limit's default key), with
// bursts of burst,
// as core/limit's Rate does; a refused call is answered with retry_after_ms
// and never reaches the upstream. It panics unless r > 0 and burst >= 1.
func WithRate(r float64, burst int) Option {
	if r <= 0 || burst < 1 {
		panic(fmt.Sprintf("proxy: WithRate(%v, %d): the rate must be positive and the burst at least 1", r, burst))
	}
	b := limit.NewRate(rate.Limit(r), burst, 10000)
	return func(o *options) { o.rate = b }
}

// WithExitWithChild ends a [Stdio] proxy's Serve when its child exits
// ([ExitedWithChild] reports that error) rather than restarting the child;
// the default restarts it. Other proxies ignore it.
func WithExitWithChild() Option { return func(o *options) { o.exitWithChild = true } }

// WithRawChildStderr passes the child's stderr on as the child wrote it,
// rather than redacted line by line.
func WithRawChildStderr() Option { return func(o *options) { o.rawStderr = true } }

// WithRatePerTool makes [WithRate]'s budget one per client and tool,
// rather than one per client shared by every tool.
func WithRatePerTool() Option { return func(o *options) { o.ratePerTool = true } }

// WithConcurrency admits at most n tool calls in flight at once; a call
// beyond them waits up to maxWait for one to finish, then is refused with
// retry_after_ms. A call holds its slot until the server has answered it,
// whether or not the client still waits (a client's cancellation, or an
// HTTP client hanging up, does not stop the server's work), or until the
// proxy stops waiting for good: over stdio one more timeout after it
// answered a call that timed out (and told the server to cancel it), over
// HTTP the call's timeout. It panics unless n >= 1 and maxWait >= 0.
func WithConcurrency(n int, maxWait time.Duration) Option {
	s := limit.NewSlots(n, false, maxWait)
	return func(o *options) { o.slots = s }
}

// WithEnvelopeOptions configures the renderer of envelopes (mappings,
// default next steps, the internal message, toolFailure _meta) with the
// core's own options.
func WithEnvelopeOptions(opts ...envelope.Option) Option {
	return func(o *options) { o.envelope = append(o.envelope, opts...) }
}
