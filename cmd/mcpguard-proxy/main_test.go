package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "hints.yaml")
	if err := os.WriteFile(bad, []byte("hints:\n  - tool: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{},
		{"--upstream", "ftp://x", "--listen", "127.0.0.1:0"},
		{"--upstream", "http://127.0.0.1:1/mcp", "--", "server"},
		{"--max-message", "10", "--", "server"},
		{"--timeout", "0s", "--", "server"},
		{"--hints", bad, "--", "server"},
		{"--log-level", "loud", "--", "server"},
		{"--repeats", "-1", "--", "server"},
		{"--repeats-window", "0s", "--", "server"},
		{"--no-such-flag"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, &stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, nil, &out, &bytes.Buffer{}); code != exitOK || out.String() != "mcpguard-proxy devel\n" {
		t.Errorf("--version: exit %d, %q", code, out.String())
	}
}

// -h starts with the usage line, then lists the flags.
func TestHelpStartsWithUsage(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, nil, &bytes.Buffer{}, &stderr); code != exitUsage ||
		!strings.HasPrefix(stderr.String(), "usage: mcpguard-proxy [flags] -- command args…\n") || !strings.Contains(stderr.String(), "-rate-per-tool") {
		t.Errorf("-h: exit %d\n%s", code, &stderr)
	}
}

// --log-calls writes the per-call record to stderr, successes included
// (the log level is info unless --log-level says otherwise); without it,
// or with --log-level warn, a success is not recorded.
func TestLogCalls(t *testing.T) {
	for _, c := range []struct {
		flags    []string
		recorded bool
	}{
		{nil, false},
		{[]string{"--log-calls"}, true},
		{[]string{"--log-arguments"}, true},
		{[]string{"--log-calls", "--log-level", "warn"}, false},
	} {
		_, stderr := stdioRun(t, c.flags...)
		if got := strings.Contains(stderr, `msg="mcpguard: tool call" tool=echo`); got != c.recorded {
			t.Errorf("%v: recorded %v, want %v:\n%s", c.flags, got, c.recorded, stderr)
		}
		if args := strings.Contains(stderr, `arguments=`); args != slices.Contains(c.flags, "--log-arguments") {
			t.Errorf("%v: arguments logged: %v:\n%s", c.flags, args, stderr)
		}
	}
}
