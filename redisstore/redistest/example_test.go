package redistest_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/redisstore/redistest"
)

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("redis-server"); err != nil && !redistest.Required() {
		fmt.Println("redistest: skipping:", redistest.ErrNotInstalled)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A test starts its own Redis with Start(t), stopped when the test ends;
// Run does the same for code without a testing.TB, such as a TestMain
// that shares one server among a package's tests and examples.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "redis")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	srv, err := redistest.Run(dir)
	if err != nil {
		panic(err)
	}
	defer srv.Stop()
	fmt.Println(srv.URL()[:len("redis://127.0.0.1:")])
	// Output: redis://127.0.0.1:
}

func TestStopAndRestartKeepTheAddress(t *testing.T) {
	srv := redistest.Start(t)
	addr := srv.Addr
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if srv.Addr != addr {
		t.Fatalf("restarted on %s, was %s", srv.Addr, addr)
	}
	if err := srv.Restart(); err == nil {
		t.Fatal("Restart of a running server did not fail")
	}
}

func TestAMissingRedisServerSkipsOutsideCIAndFailsInIt(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no redis-server on it
	_, err := redistest.Run(t.TempDir())
	if !errors.Is(err, redistest.ErrNotInstalled) || !strings.Contains(err.Error(), "apt-get install -y redis-server") {
		t.Fatalf("want ErrNotInstalled with an install hint, got %v", err)
	}
	t.Setenv("CI", "")
	t.Setenv("MCPGUARD_REQUIRE_REDIS", "")
	if redistest.Required() {
		t.Fatal("required outside CI")
	}
	t.Setenv("MCPGUARD_REQUIRE_REDIS", "1")
	if !redistest.Required() {
		t.Fatal("not required with MCPGUARD_REQUIRE_REDIS=1")
	}
	t.Setenv("MCPGUARD_REQUIRE_REDIS", "")
	t.Setenv("CI", "true")
	if !redistest.Required() {
		t.Fatal("not required in CI")
	}
}
