// Command shop-server serves the example shop over MCP: stdio by default,
// streamable HTTP with -http.
//
//	go run ./example/cmd/shop-server                       # stdio, for an MCP client config
//	go run ./example/cmd/shop-server -http 127.0.0.1:8080  # streamable HTTP at /mcp
//	go run ./example/cmd/shop-server -otel-stdout -rate 5  # print spans, 5 calls/s per caller
//	go run ./example/cmd/shop-server -sdk go-sdk -rate 5   # the same shop on the official Go SDK
//	go run ./example/cmd/shop-server -sdk go-sdk -otel-stdout -rate 5  # and its spans
//
// With -rate, a caller is its remote address over -http (one bucket for
// everyone on stdio, where there is one client): the mcp-go server names
// it with server.WithHTTPContextFunc(limit.HTTPContext), the go-sdk server
// with gosdk/limit.HTTPHandler. Neither keys by MCP session, which a
// client can mint by initializing again. -rate-key global gives everyone
// one bucket; -rate-store redis://host:port keeps the buckets in Redis, so
// that replicas behind one load balancer share them (ratestore.go):
//
//	shop-server -http 127.0.0.1:8081 -rate 50 -rate-key global -rate-store redis://127.0.0.1:6379
//
// Logs go to stderr; on stdio, stdout carries only the protocol, so
// -otel-stdout prints spans to stderr there (to stdout with -http).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpguard/mcpguard/example/shop"
	gosdklimit "github.com/mcpguard/mcpguard/gosdk/limit"
	gosdkotel "github.com/mcpguard/mcpguard/gosdk/otel"
	"github.com/mcpguard/mcpguard/limit"
	mcpotel "github.com/mcpguard/mcpguard/otel"
)

// PanicToolEnv enables the test-only panic tool, like -panic-tool.
const PanicToolEnv = "SHOP_SERVER_PANIC_TOOL"

func main() {
	c, err := parseFlags(os.Args[1:])
	if err == flag.ErrHelp {
		os.Exit(0)
	}
	if err == nil {
		err = c.check()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "shop-server:", err)
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "shop-server:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line's flags.
func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("shop-server", flag.ContinueOnError)
	var (
		addr      = fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
		panicTool = fs.Bool("panic-tool", os.Getenv(PanicToolEnv) == "1", "register shop_debug_panic, a tool that panics (for fault-injection tests; also "+PanicToolEnv+"=1)")
		plain     = fs.Bool("plain", false, "serve without the mcpguard chain, as plain mcp-go would (for comparison only)")
		verbose   = fs.Bool("v", false, "log every tool call to stderr, not only failures")
		stats     = fs.Bool("stats", false, "on exit, print goroutine and heap statistics to stderr as a JSON line starting with \"stats: \"")
		otelOut   = fs.Bool("otel-stdout", false, "trace every tool call with OpenTelemetry and print the spans (stdout with -http, stderr on stdio)")
		perSec    = fs.Float64("rate", 0, "limit tool calls to this many per second per bucket of -rate-key (by default per caller: its principal, else its remote address over -http), with bursts of as many; 0: no limit")
		sdk       = fs.String("sdk", sdkMCPGo, "the MCP SDK to serve on: "+sdkMCPGo+" (shop.NewServer) or "+sdkGoSDK+" (shop.NewGoSDKServer, the official Go SDK)")
	)
	rateStore := rateFlags(fs)
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	fs.Visit(func(f *flag.Flag) { rateStore.given = append(rateStore.given, f.Name) })
	return config{*addr, *panicTool, *plain, *verbose, *stats, *otelOut, *perSec, *sdk, *rateStore}, nil
}

type config struct {
	addr                             string
	panicTool, plain, verbose, stats bool
	otelStdout                       bool
	rate                             float64
	sdk                              string
	rateStore                        rateConfig // ratestore.go
}

// check reports flags that do not go together.
func (c config) check() error {
	switch {
	case c.sdk != sdkMCPGo && c.sdk != sdkGoSDK:
		return fmt.Errorf("-sdk %q: want %s or %s", c.sdk, sdkMCPGo, sdkGoSDK)
	case c.rate < 0:
		return errors.New("-rate must not be negative")
	}
	return c.rateStore.check(c.rate > 0)
}

// The -sdk values.
const (
	sdkMCPGo = "mcp-go"
	sdkGoSDK = "go-sdk"
)

func run(c config) error {
	level := slog.LevelWarn
	if c.verbose {
		level = slog.LevelInfo
	}
	var handler slog.Handler = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})
	if c.otelStdout {
		handler = mcpotel.LogHandler(handler) // log lines carry trace_id and span_id
	}
	logger := slog.New(handler)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	store, err := shop.Open(ctx)
	if err != nil {
		return err
	}
	spans := io.Writer(os.Stderr)
	if c.addr != "" {
		spans = os.Stdout
	}
	opts, shutdown, err := shopOptions(c, logger, spans)
	if err != nil {
		return errors.Join(err, store.Close())
	}
	defer shutdown()

	var serve func(context.Context) error
	if c.sdk == sdkGoSDK {
		s, flush, err := goSDKServer(c, store, opts, spans)
		if err != nil {
			return errors.Join(err, store.Close())
		}
		defer flush()
		serve = goSDKServe(s, c.addr)
	} else {
		serve = mcpGoServe(shop.NewServer(store, opts...), c.addr)
	}
	// The baseline is taken with everything but the transport running.
	rec := newRecorder(c.stats)
	err = serve(ctx)
	err = errors.Join(err, store.Close())
	rec.report()
	return err
}

// shopOptions turns the flags into the shop's options. Spans go to spans;
// shutdown flushes them.
func shopOptions(c config, logger *slog.Logger, spans io.Writer) (opts []shop.Option, shutdown func(), err error) {
	opts = []shop.Option{shop.WithLogger(logger)}
	shutdown = func() {}
	if c.panicTool {
		opts = append(opts, shop.WithPanicTool())
	}
	if c.plain {
		opts = append(opts, shop.WithoutGuard())
	}
	if c.otelStdout && c.sdk != sdkGoSDK { // go-sdk: see goSDKServer
		tracing, flush, err := stdoutTracing(spans)
		if err != nil {
			return nil, nil, err
		}
		opts, shutdown = append(opts, tracing...), flush
	}
	if c.rate > 0 {
		limits, closeStore, err := rateOptions(c.rate, c.rateStore)
		if err != nil {
			shutdown()
			return nil, nil, err
		}
		flush := shutdown
		opts, shutdown = append(opts, limits...), func() { flush(); closeStore() }
	}
	return opts, shutdown, nil
}

// stdoutTracing returns the shop options that trace every tool call with
// otel.Middleware, outermost, into the stdout exporter, pretty-printed to
// out, and a function that flushes it.
func stdoutTracing(out io.Writer) ([]shop.Option, func(), error) {
	tp, err := stdoutProvider(out)
	if err != nil {
		return nil, nil, err
	}
	hooks := &server.Hooks{}
	opts := []shop.Option{
		shop.WithServerOptions(server.WithHooks(hooks)),
		shop.WithOuterLayers(mcpotel.Middleware(mcpotel.WithTracerProvider(tp), mcpotel.WithHooks(hooks))),
	}
	return opts, func() { _ = tp.Shutdown(context.Background()) }, nil
}

// stdoutProvider is a tracer provider exporting into the stdout exporter,
// pretty-printed to out.
func stdoutProvider(out io.Writer) (*sdktrace.TracerProvider, error) {
	exp, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "mcpguard-shop")))), nil
}

// goSDKServer is the go-sdk shop with opts; with -otel-stdout, gosdk/otel's
// Middleware is added last, so outermost, tracing into spans, and flush
// flushes it.
func goSDKServer(c config, store *shop.Store, opts []shop.Option, spans io.Writer) (s *gomcp.Server, flush func(), err error) {
	s, flush = shop.NewGoSDKServer(store, opts...), func() {}
	if c.otelStdout {
		tp, err := stdoutProvider(spans)
		if err != nil {
			return nil, nil, err
		}
		s.AddReceivingMiddleware(gosdkotel.Middleware(gosdkotel.WithTracerProvider(tp)))
		flush = func() { _ = tp.Shutdown(context.Background()) }
	}
	return s, flush, nil
}

// mcpGoServe serves s on stdio, or on streamable HTTP at addr.
func mcpGoServe(s *server.MCPServer, addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		if addr != "" {
			return serveHTTP(ctx, addr, func(httpSrv *http.Server) (http.Handler, func(context.Context) error) {
				return mcpGoHTTP(s, httpSrv)
			})
		}
		err := server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			err = nil
		}
		return err
	}
}

// goSDKServe serves the go-sdk server s on stdio, or on streamable HTTP at
// addr.
func goSDKServe(s *gomcp.Server, addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		if addr != "" {
			return serveHTTP(ctx, addr, func(httpSrv *http.Server) (http.Handler, func(context.Context) error) {
				return goSDKHTTP(s, httpSrv)
			})
		}
		err := s.Run(ctx, &gomcp.StdioTransport{})
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			err = nil
		}
		return err
	}
}

// mcpGoHTTP is the streamable HTTP handler of the mcp-go server s, which
// names each request's remote address for the rate limit's key, and its
// shutdown.
func mcpGoHTTP(s *server.MCPServer, httpSrv *http.Server) (http.Handler, func(context.Context) error) {
	mcpSrv := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPServer(httpSrv),
		server.WithHTTPContextFunc(limit.HTTPContext))
	return mcpSrv, mcpSrv.Shutdown
}

// goSDKHTTP is the streamable HTTP handler of the go-sdk server s, which
// names each request's remote address for the rate limit's key, and its
// shutdown.
func goSDKHTTP(s *gomcp.Server, httpSrv *http.Server) (http.Handler, func(context.Context) error) {
	h := gomcp.NewStreamableHTTPHandler(func(*http.Request) *gomcp.Server { return s }, nil)
	return gosdklimit.HTTPHandler(h), func(ctx context.Context) error {
		// go-sdk's handler has no Shutdown: end its sessions (and their
		// open streams), then the HTTP server.
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
		return httpSrv.Shutdown(ctx)
	}
}

// serveHTTP serves the handler mcp builds at /mcp on addr until ctx ends,
// then shuts down with the function mcp returns.
func serveHTTP(ctx context.Context, addr string, mcp func(*http.Server) (http.Handler, func(context.Context) error)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(os.Stderr, "http: ", 0),
	}
	handler, shutdown := mcp(httpSrv)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	httpSrv.Handler = mux
	// Tests and scripts read this line to find the port of -http 127.0.0.1:0.
	fmt.Fprintf(os.Stderr, "shop-server: listening on http://%s/mcp\n", ln.Addr())

	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = shutdown(shutdownCtx)
	if e := <-served; !errors.Is(e, http.ErrServerClosed) {
		err = errors.Join(err, e)
	}
	return err
}

// recorder samples the heap while the server runs and, at exit, reports
// the goroutines left over after shutdown: what a load test needs to prove
// no leak and bounded memory in the real process.
type recorder struct {
	on         bool
	start      int
	mu         sync.Mutex
	peak       uint64
	done, gone chan struct{}
}

func newRecorder(on bool) *recorder {
	r := &recorder{on: on, start: runtime.NumGoroutine()}
	if !on {
		return r
	}
	r.done, r.gone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.gone)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			r.sample()
			select {
			case <-r.done:
				return
			case <-t.C:
			}
		}
	}()
	return r
}

func (r *recorder) sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.mu.Lock()
	r.peak = max(r.peak, m.HeapInuse)
	r.mu.Unlock()
}

func (r *recorder) report() {
	if !r.on {
		return
	}
	close(r.done)
	<-r.gone
	r.sample()
	// Goroutines of closed connections and sessions take a moment to
	// return, longer on a busy machine; wait for them, up to 15 s, a hang
	// guard far above the usual few milliseconds.
	end := runtime.NumGoroutine()
	for i := 0; i < 750 && end > r.start; i++ {
		time.Sleep(20 * time.Millisecond)
		end = runtime.NumGoroutine()
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.mu.Lock()
	defer r.mu.Unlock()
	b, _ := json.Marshal(map[string]any{
		"goroutines_start":    r.start,
		"goroutines_end":      end,
		"heap_inuse_peak":     r.peak,
		"heap_inuse_after_gc": m.HeapInuse,
		"total_alloc_bytes":   m.TotalAlloc,
	})
	fmt.Fprintf(os.Stderr, "stats: %s\n", b)
	if end > r.start {
		buf := make([]byte, 1<<20)
		fmt.Fprintf(os.Stderr, "leftover goroutines:\n%s\n", buf[:runtime.Stack(buf, true)])
	}
}
