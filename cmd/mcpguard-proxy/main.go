// Command mcpguard-proxy gives any MCP server, in any language, mcpguard's
// guarantees without a change to its code: it sits between the client and
// the server and rewrites what the server answers tool calls with into
// mcpguard's envelopes, redacted, and passes everything else through
// untouched.
//
// Usage:
//
//	mcpguard-proxy [flags] -- command [args...]
//	    starts the server as a child over stdio and serves the client on
//	    stdio: the one line a host's configuration changes
//	mcpguard-proxy [flags] --upstream http://127.0.0.1:PORT/mcp --listen 127.0.0.1:PORT
//	    does the same in front of a streamable HTTP server
//
// Flags:
//
//	--upstream URL       the streamable HTTP server to proxy (HTTP mode)
//	--listen ADDR        where to serve clients in HTTP mode (default 127.0.0.1:8808)
//	--max-message N      bound on one message either way, in bytes (default 16 MiB)
//	--timeout D          bound on each tool call (default 2m)
//	--rate R, --burst N  tool calls a second per client, all its tools together, and
//	                     burst (default: no limit)
//	--rate-per-tool      give --rate's budget to each tool of a client apart
//	--concurrency N      tool calls in flight at once (default: no limit); a call
//	                     holds its slot until the server answers it, even when the
//	                     client cancelled or hung up, or the proxy stops waiting
//	                     (one timeout more over stdio, the timeout over HTTP)
//	--hold-cap D         how long a call of a 2026-07-28 client that --rate or
//	                     --concurrency refused may be held until the limit admits
//	                     it, rather than refused (default 3s; 0: never held)
//	--redact-successes   redact successful results too (error results always are)
//	--exit-with-child    end when the child exits, rather than restarting it
//	--raw-child-stderr   pass the child's stderr on as it is (by default each line
//	                     is redacted as the proxy's own log is)
//	--tool-failure-meta  also put the envelope under _meta's io.modelcontextprotocol/toolFailure
//	--hints FILE         per-tool next steps and text-to-code mappings, YAML or JSON
//	                     (see docs/proxy.md); tool references are checked
//	                     against the server's tools/list
//	--pin FILE           hold the server's tools to the definitions in FILE, a
//	                     baseline mcpguard-audit --baseline wrote: a tool changed
//	                     or new is left out of tools/list and its calls refused
//	--log-level L        debug, info, warn (default) or error; logs go to stderr
//	--log-calls          one record per tool call, as the Go fronts' WithLogger
//	                     writes: successes at info (the default level then), tool
//	                     errors at warn, internal and protocol errors at error
//	--log-arguments      --log-calls, with each call's arguments, secrets masked
//	--otel               export spans and metrics with OTLP over HTTP, configured by
//	                     the standard OTEL_EXPORTER_OTLP_* environment variables
//	--otel-stderr        print spans and metrics to stderr
//	--otel-stdout        print spans and metrics to stdout (HTTP mode only: in stdio
//	                     mode stdout is the MCP stream)
//	--version            print the version and exit
//
// Exit status: 0 when the client closed the session, 1 on a failure (with
// --exit-with-child, when the child exited), 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	// The proxy writes the child's stderr itself (redacted): a client that
	// closed the stderr pipe must not kill it with SIGPIPE. Caught rather
	// than ignored, so that the child's disposition stays the default.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type config struct {
	upstream, listen                 string
	maxMessage                       int
	timeout, holdCap                 time.Duration
	rate                             float64
	burst, concurrency               int
	ratePerTool, rawStderr           bool
	successes, exitChild             bool
	failureMeta, noDeclared, version bool
	logCalls, logArguments           bool
	otlp, otelStdout, otelStderr     bool
	logLevel, hintsFile              string
	command                          []string
	stateKeysFile                    string // seal_main.go
	noStateSealing                   bool
	repeats                          int
	repeatsWindow                    time.Duration
	pinFile                          string // pin_main.go
}

// usage is what -h prints before the flags.
const usage = `usage: mcpguard-proxy [flags] -- command args…
       mcpguard-proxy [flags] --upstream http://127.0.0.1:PORT/mcp [--listen ADDR]

The first form starts the MCP server command as a child over stdio; the
second proxies a streamable HTTP server. Flags:
`

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("mcpguard-proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.upstream, "upstream", "", "the streamable HTTP server to proxy (HTTP mode)")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:8808", "where to serve clients in HTTP mode")
	fs.IntVar(&c.maxMessage, "max-message", proxy.DefaultMaxMessage, "bound on one message either way, in bytes")
	fs.DurationVar(&c.timeout, "timeout", proxy.DefaultTimeout, "bound on each tool call")
	fs.Float64Var(&c.rate, "rate", 0, "tool calls a second per client, all its tools together (0: no limit)")
	fs.BoolVar(&c.ratePerTool, "rate-per-tool", false, "give --rate's budget to each tool of a client apart")
	fs.IntVar(&c.burst, "burst", 10, "burst of --rate")
	fs.IntVar(&c.concurrency, "concurrency", 0, "tool calls in flight at once (0: no limit)")
	fs.DurationVar(&c.holdCap, "hold-cap", limit.DefaultHoldCap, "how long a call of a 2026-07-28 client that --rate or --concurrency refused may be held until the limit admits it (0: never held); a call with no room left to be held is shed for its client to re-send, while requestState is sealed")
	fs.BoolVar(&c.successes, "redact-successes", false, "redact successful results too (secrets, tokens, stack traces; paths stay)")
	fs.BoolVar(&c.exitChild, "exit-with-child", false, "end when the child exits rather than restarting it")
	fs.BoolVar(&c.failureMeta, "tool-failure-meta", false, "also put the envelope in _meta")
	fs.BoolVar(&c.rawStderr, "raw-child-stderr", false, "pass the child's stderr on as it is, not redacted")
	fs.BoolVar(&c.noDeclared, "no-declared-schemas", false, "do not check calls' arguments against their tools' declared input schemas")
	fs.IntVar(&c.repeats, "repeats", limit.DefaultRepeatFailures, "identical failing calls of a client before the next is held back for a short wait (0: no repeated-failure guard)")
	fs.DurationVar(&c.repeatsWindow, "repeats-window", limit.DefaultRepeatWindow, "how long the guard remembers a call's failures after the last")
	fs.StringVar(&c.logLevel, "log-level", "warn", "debug, info, warn or error (info with --log-calls)")
	fs.BoolVar(&c.logCalls, "log-calls", false, "log one record per tool call: successes at info, tool errors at warn, internal and protocol errors at error")
	fs.BoolVar(&c.logArguments, "log-arguments", false, "--log-calls, with each call's arguments, secrets masked")
	fs.StringVar(&c.hintsFile, "hints", "", "a hints file, YAML or JSON: per-tool next steps and mappings")
	fs.StringVar(&c.pinFile, "pin", "", "a baseline of mcpguard-audit --baseline: a tool whose definition is not in it is left out of tools/list and its calls refused")
	fs.BoolVar(&c.otlp, "otel", false, "export spans and metrics with OTLP over HTTP (OTEL_EXPORTER_OTLP_* variables)")
	fs.BoolVar(&c.otelStderr, "otel-stderr", false, "print spans and metrics to stderr")
	fs.BoolVar(&c.otelStdout, "otel-stdout", false, "print spans and metrics to stdout (HTTP mode only)")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	fs.StringVar(&c.stateKeysFile, "state-keys-file", "", "a file of keys to seal requestState with, lines kid:base64key, the first current, readable by its owner only (else $"+stateKeysEnv+", else a key per process)")
	fs.BoolVar(&c.noStateSealing, "no-state-sealing", false, "pass requestState unsealed")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	c.command = fs.Args()
	c.logCalls = c.logCalls || c.logArguments
	if c.logCalls && !flagSet(fs, "log-level") {
		c.logLevel = "info" // the records of successes are what --log-calls asks for
	}
	if c.version {
		return c, nil
	}
	switch {
	case c.upstream == "" && len(c.command) == 0:
		return nil, errors.New("give the server: mcpguard-proxy [flags] -- command [args...], or --upstream URL")
	case c.upstream != "" && len(c.command) > 0:
		return nil, errors.New("give either a command or --upstream, not both")
	case c.upstream != "" && !httpURL(c.upstream):
		return nil, fmt.Errorf("--upstream %q: want an http:// or https:// URL", c.upstream)
	case c.maxMessage < 1<<10:
		return nil, errors.New("--max-message must be at least 1024")
	case c.timeout <= 0:
		return nil, errors.New("--timeout must be positive")
	case c.repeats < 0 || c.repeatsWindow <= 0:
		return nil, errors.New("--repeats must be 0 or more and --repeats-window positive")
	case c.rate < 0 || c.burst < 1 || c.concurrency < 0:
		return nil, errors.New("--rate, --burst and --concurrency must be positive")
	case c.holdCap < 0:
		return nil, errors.New("--hold-cap must be 0 or more")
	case c.otelStdout && c.upstream == "":
		return nil, errOtelStdout
	case c.otelStdout && c.otelStderr:
		return nil, errors.New("give --otel-stdout or --otel-stderr, not both")
	}
	return c, nil
}

func (c *config) options(logger *slog.Logger, hints *proxy.Config) []proxy.Option {
	opts := []proxy.Option{proxy.WithLogger(logger), proxy.WithMaxMessage(c.maxMessage), proxy.WithTimeout(c.timeout), proxy.WithHoldCap(c.holdCap)}
	if hints != nil {
		opts = append(opts, proxy.WithConfig(hints))
	}
	if c.successes {
		opts = append(opts, proxy.WithRedactSuccesses())
	}
	if c.exitChild {
		opts = append(opts, proxy.WithExitWithChild())
	}
	if c.rate > 0 {
		opts = append(opts, proxy.WithRate(c.rate, c.burst))
		if c.ratePerTool {
			opts = append(opts, proxy.WithRatePerTool())
		}
	}
	if c.concurrency > 0 {
		opts = append(opts, proxy.WithConcurrency(c.concurrency, 0))
	}
	if c.failureMeta {
		opts = append(opts, proxy.WithEnvelopeOptions(envelope.WithToolFailureMeta()))
	}
	if c.noDeclared {
		opts = append(opts, proxy.WithoutDeclaredSchemas())
	}
	if c.rawStderr {
		opts = append(opts, proxy.WithRawChildStderr())
	}
	if c.logArguments {
		opts = append(opts, proxy.WithCallLog(calllog.WithArguments()))
	} else if c.logCalls {
		opts = append(opts, proxy.WithCallLog())
	}
	switch {
	case c.repeats == 0:
		opts = append(opts, proxy.WithRepeats(nil))
	case c.repeats != limit.DefaultRepeatFailures || c.repeatsWindow != limit.DefaultRepeatWindow:
		opts = append(opts, proxy.WithRepeats(limit.NewRepeats(c.repeats, c.repeatsWindow, nil, limit.DefaultRepeatMaxKeys, 0)))
	}
	return opts
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "mcpguard-proxy:", err)
		}
		return exitUsage
	}
	if c.version {
		fmt.Fprintln(stdout, "mcpguard-proxy", version())
		return exitOK
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		fmt.Fprintln(stderr, "mcpguard-proxy: --log-level:", err)
		return exitUsage
	}
	var hints *proxy.Config
	if c.hintsFile != "" {
		if hints, err = proxy.LoadConfig(c.hintsFile); err != nil {
			fmt.Fprintln(stderr, "mcpguard-proxy: --hints:", err)
			return exitUsage
		}
	}
	state, err := stateOptions(c, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "mcpguard-proxy:", err)
		return exitUsage
	}
	traced, handler, flush, err := telemetry(ctx, c, stdout, stderr, slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err != nil {
		fmt.Fprintln(stderr, "mcpguard-proxy: OpenTelemetry:", err)
		return exitUsage
	}
	defer flush() // the last spans and metrics are exported before the exit
	logger := slog.New(handler)
	pins, err := pinOptions(c, logger)
	if err != nil {
		fmt.Fprintln(stderr, "mcpguard-proxy:", err)
		return exitUsage
	}
	opts := append(append(append(c.options(logger, hints), traced...), state...), pins...)
	if c.upstream != "" {
		err = serveHTTP(ctx, c, logger, opts, stderr)
	} else {
		err = proxy.NewStdio(c.command, stderr, opts...).Serve(ctx, stdin, stdout)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "mcpguard-proxy:", err)
		return exitFailure
	}
	return exitOK
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// version is the command's module version, when it was built from one
// (go install …@vX.Y.Z), and "devel" otherwise.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
