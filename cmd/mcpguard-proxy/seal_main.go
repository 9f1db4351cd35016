package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy"
	"github.com/mcpguard/mcpguard/core/seal"
)

// stateKeysEnv names the environment variable that may hold the key ring
// the proxy seals requestState with, in seal.ParseKeyRing's format.
const stateKeysEnv = "MCPGUARD_STATE_KEYS"

// maxKeyFile bounds the key file read: a ring is a few lines.
const maxKeyFile = 64 << 10

// stateOptions configures the sealing of requestState: off with
// --no-state-sealing; else the ring in --state-keys-file, else the one in
// $MCPGUARD_STATE_KEYS, else a per-process key (no option). Keys never
// come from a flag's value, which other users of the machine can read in
// the process list.
func stateOptions(c *config, getenv func(string) string) ([]proxy.Option, error) {
	if c.noStateSealing {
		if c.stateKeysFile != "" {
			return nil, errors.New("give --state-keys-file or --no-state-sealing, not both")
		}
		return []proxy.Option{proxy.WithoutStateSealing()}, nil
	}
	var text []byte
	switch {
	case c.stateKeysFile != "":
		f, err := os.Open(c.stateKeysFile)
		if err != nil {
			return nil, fmt.Errorf("--state-keys-file: %w", err)
		}
		defer f.Close()
		if text, err = io.ReadAll(io.LimitReader(f, maxKeyFile+1)); err != nil {
			return nil, fmt.Errorf("--state-keys-file: %w", err)
		}
		if len(text) > maxKeyFile {
			return nil, fmt.Errorf("--state-keys-file: longer than %d bytes", maxKeyFile)
		}
	case getenv(stateKeysEnv) != "":
		text = []byte(getenv(stateKeysEnv))
	default:
		return nil, nil
	}
	ring, err := seal.ParseKeyRing(text)
	if err != nil {
		from := "--state-keys-file"
		if c.stateKeysFile == "" {
			from = "$" + stateKeysEnv
		}
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return []proxy.Option{proxy.WithStateKeys(ring)}, nil
}
