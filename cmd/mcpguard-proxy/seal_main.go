package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

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
		var err error
		if text, err = readKeyFile(c.stateKeysFile); err != nil {
			return nil, fmt.Errorf("--state-keys-file: %w", err)
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

// readKeyFile reads a key ring's file, refusing one that group or others
// may read or write, as ssh refuses such a private key: whoever reads the
// keys reads and forges every sealed requestState. Windows is not
// checked: its file modes do not say who may read a file.
func readKeyFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("permissions %04o for %s are too open: users other than its owner can read or change the keys "+
			"(chmod 600 %s, and give new keys: these may have been read)", perm, name, name)
	}
	text, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(text) > maxKeyFile {
		return nil, fmt.Errorf("longer than %d bytes", maxKeyFile)
	}
	return text, nil
}
