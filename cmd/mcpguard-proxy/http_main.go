package main

import (
	"context"
	"io"
	"log/slog"
	"errors"
)

func serveHTTP(ctx context.Context, c *config, logger *slog.Logger, stderr io.Writer) error {
	return errors.New("HTTP mode: not built yet")
}
