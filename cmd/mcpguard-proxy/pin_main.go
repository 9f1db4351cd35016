package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
	"github.com/mcpguard/mcpguard/core/pin"
)

// pinOptions holds the server's tools to the lock --pin names
// (mcpguard-audit --baseline writes it), whose held-back definitions are
// logged to logger. A lock that is missing, unreadable or edited by hand
// stops the proxy before it starts the server: pins that did not load
// must not let every tool through.
func pinOptions(c *config, logger *slog.Logger) ([]proxy.Option, error) {
	if c.pinFile == "" {
		return nil, nil
	}
	f, err := os.Open(c.pinFile)
	if err != nil {
		return nil, fmt.Errorf("--pin: %w", err)
	}
	defer f.Close()
	lock, err := pin.ReadLock(f)
	if err != nil {
		return nil, fmt.Errorf("--pin %s: %w", c.pinFile, err)
	}
	return []proxy.Option{proxy.WithPins(pin.New(lock, logger))}, nil
}
