package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	coreotel "github.com/mcpguard/mcpguard/core/otel"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// BenchmarkToolCall measures one echo tool call directly and through the
// proxy, over stdio (the child is this test binary's server) and over
// streamable HTTP (an in-process upstream), in one run, and reports p50 and
// p99 latency. Allocations are this process's: the proxy's own over stdio
// (the server is another process), the client's, upstream's and proxy's
// together over HTTP.
func BenchmarkToolCall(b *testing.B) {
	quiet := proxy.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	b.Run("stdio/direct", func(b *testing.B) {
		cmd := exec.Command(os.Args[0], "proxy-child")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { in.Close(); _ = cmd.Wait() }()
		benchLines(b, in, bufio.NewReader(out))
	})
	// With telemetry: the real SDK, every span sampled and recorded (no
	// exporter: what is measured is the proxy's and the SDK's work).
	otel := proxy.WithTelemetry(coreotel.WithTracerProvider(sdktrace.NewTracerProvider()),
		coreotel.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))))
	b.Run("stdio/relay", benchRelay)
	b.Run("stdio/proxy", func(b *testing.B) { benchStdio(b, quiet) })
	b.Run("stdio/proxy+otel", func(b *testing.B) { benchStdio(b, quiet, otel) })
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m childMsg
		_ = json.Unmarshal(b, &m)
		upstreamCall(w, r, m)
	}))
	defer up.Close()
	px := httptest.NewServer(proxy.NewHTTP(up.URL, quiet))
	defer px.Close()
	b.Run("http/direct", func(b *testing.B) { benchHTTP(b, up.URL) })
	b.Run("http/proxy", func(b *testing.B) { benchHTTP(b, px.URL) })
	pxo := httptest.NewServer(proxy.NewHTTP(up.URL, quiet, otel))
	defer pxo.Close()
	b.Run("http/proxy+otel", func(b *testing.B) { benchHTTP(b, pxo.URL) })
}

func benchStdio(b *testing.B, opts ...proxy.Option) {
	cin, pin := io.Pipe()
	pout, cout := io.Pipe()
	p := proxy.NewStdio([]string{os.Args[0], "proxy-child"}, io.Discard, opts...)
	done := make(chan struct{})
	go func() { _ = p.Serve(context.Background(), cin, cout); cout.Close(); close(done) }()
	defer func() { pin.Close(); <-done }()
	benchLines(b, pin, bufio.NewReader(pout))
}

// benchRelay is the do-nothing relay of e2e's TestProxyLatencyAgainstARelay
// in this process: the same pipes as benchStdio's proxy, io.Copy both ways.
func benchRelay(b *testing.B) {
	cin, pin := io.Pipe()
	pout, cout := io.Pipe()
	cmd := exec.Command(os.Args[0], "proxy-child")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { _, _ = io.Copy(in, cin); in.Close() }()
	go func() { _, _ = io.Copy(cout, out); cout.Close() }()
	defer func() { pin.Close(); _ = cmd.Wait() }()
	benchLines(b, pin, bufio.NewReader(pout))
}

func benchLines(b *testing.B, w io.Writer, r *bufio.Reader) {
	fmt.Fprintln(w, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`+"\n", i+1)
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	report(b, lat)
}

func benchHTTP(b *testing.B, url string) {
	c := &http.Client{}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(callBody(i+1, "echo", `{"text":"hello"}`)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		lat = append(lat, time.Since(start))
	}
	report(b, lat)
}

func report(b *testing.B, lat []time.Duration) {
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds()), "p99-µs")
}
