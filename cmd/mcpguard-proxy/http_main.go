package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
)

// serveHTTP serves clients on c.listen in front of c.upstream until ctx
// is done.
func serveHTTP(ctx context.Context, c *config, logger *slog.Logger, opts []proxy.Option, stderr io.Writer) error {
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return err
	}
	// Like a server's own start-up line: where to point the client (any
	// path is proxied to the upstream's).
	fmt.Fprintf(stderr, "mcpguard-proxy: listening on http://%s/mcp in front of %s\n", ln.Addr(), c.upstream)
	srv := &http.Server{Handler: proxy.NewHTTP(c.upstream, opts...), ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes: 64 << 10}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = srv.Shutdown(shut)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
