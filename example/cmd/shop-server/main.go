// Command shop-server serves the example shop over MCP: stdio by default,
// streamable HTTP with -http.
//
//	go run ./example/cmd/shop-server                       # stdio, for an MCP client config
//	go run ./example/cmd/shop-server -http 127.0.0.1:8080  # streamable HTTP at /mcp
//
// Logs go to stderr; on stdio, stdout carries only the protocol.
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

	"github.com/mcpguard/mcpguard/example/shop"
)

// PanicToolEnv enables the test-only panic tool, like -panic-tool.
const PanicToolEnv = "SHOP_SERVER_PANIC_TOOL"

func main() {
	var (
		addr      = flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
		panicTool = flag.Bool("panic-tool", os.Getenv(PanicToolEnv) == "1", "register shop_debug_panic, a tool that panics (for fault-injection tests; also "+PanicToolEnv+"=1)")
		plain     = flag.Bool("plain", false, "serve without the mcpguard chain, as plain mcp-go would (for comparison only)")
		verbose   = flag.Bool("v", false, "log every tool call to stderr, not only failures")
		stats     = flag.Bool("stats", false, "on exit, print goroutine and heap statistics to stderr as a JSON line starting with \"stats: \"")
	)
	flag.Parse()
	if err := run(*addr, *panicTool, *plain, *verbose, *stats); err != nil {
		fmt.Fprintln(os.Stderr, "shop-server:", err)
		os.Exit(1)
	}
}

func run(addr string, panicTool, plain, verbose, stats bool) error {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	store, err := shop.Open(ctx)
	if err != nil {
		return err
	}
	opts := []shop.Option{shop.WithLogger(logger)}
	if panicTool {
		opts = append(opts, shop.WithPanicTool())
	}
	if plain {
		opts = append(opts, shop.WithoutGuard())
	}
	s := shop.NewServer(store, opts...)

	// The baseline is taken with everything but the transport running.
	rec := newRecorder(stats)
	if addr == "" {
		err = server.NewStdioServer(s).Listen(ctx, os.Stdin, os.Stdout)
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			err = nil
		}
	} else {
		err = serveHTTP(ctx, s, addr)
	}
	err = errors.Join(err, store.Close())
	rec.report()
	return err
}

func serveHTTP(ctx context.Context, s *server.MCPServer, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	httpSrv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(os.Stderr, "http: ", 0),
	}
	mcpSrv := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPServer(httpSrv))
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpSrv)
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
	err = mcpSrv.Shutdown(shutdownCtx)
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
