package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestStateKeys(t *testing.T) {
	key := strings.Repeat("A", 43)
	dir := t.TempDir()
	file := filepath.Join(dir, "keys")
	if err := os.WriteFile(file, []byte("# ring\nk2:"+key+"\nk1:"+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("k1:"+key[:20]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == stateKeysEnv {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name    string
		c       config
		env     string
		options int
		err     string
	}{
		{"per-process key", config{}, "", 0, ""},
		{"file", config{stateKeysFile: file}, "", 1, ""},
		{"file over env", config{stateKeysFile: file}, "bad", 1, ""},
		{"env", config{}, "k1:" + key, 1, ""},
		{"off", config{noStateSealing: true}, "", 1, ""},
		{"off and file", config{noStateSealing: true, stateKeysFile: file}, "", 0, "not both"},
		{"missing file", config{stateKeysFile: filepath.Join(dir, "none")}, "", 0, "--state-keys-file"},
		{"bad file", config{stateKeysFile: bad}, "", 0, "--state-keys-file"},
		{"bad env", config{}, "k1:" + key[:20], 0, "$MCPGUARD_STATE_KEYS"},
	} {
		opts, err := stateOptions(&tc.c, env(tc.env))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		case err != nil && strings.Contains(err.Error(), key[:20]):
			t.Errorf("%s: the error shows the key: %v", tc.name, err)
		case len(opts) != tc.options:
			t.Errorf("%s: %d options, want %d", tc.name, len(opts), tc.options)
		}
	}
}

// A key file group or others may read is refused at start, naming its
// mode and the fix, as ssh refuses such a private key: the keys are what
// every sealed requestState's secrecy rests on.
func TestStateKeysFileOthersCanReadIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not say who can read a file on Windows")
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620} {
		file := filepath.Join(t.TempDir(), "keys")
		if err := os.WriteFile(file, []byte("k1:"+strings.Repeat("A", 43)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(file, mode); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"--state-keys-file", file, "--", "server"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if want := fmt.Sprintf("%04o", mode); code != exitUsage || !strings.Contains(stderr.String(), want) ||
			!strings.Contains(stderr.String(), "chmod 600") {
			t.Errorf("mode %04o: exit %d, stderr %q; want exit %d naming %s and the fix", mode, code, stderr.String(), exitUsage, want)
		}
	}
}
