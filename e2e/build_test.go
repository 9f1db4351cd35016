package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/mark3labs/mcp-go/mcp"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

type build struct {
	once sync.Once
	path string
	err  error
}

var (
	builds  [2]build // [0] plain, [1] with -race
	binDir  string
	dirOnce sync.Once
)

// shopServer builds example/cmd/shop-server once per test binary and
// returns its path. Under -race the server is built with -race too, so
// the server's own code is race-checked while real clients drive it.
func shopServer(t testing.TB) string { return buildShopServer(t, raceEnabled) }

// buildShopServer builds the server with or without the race detector.
func buildShopServer(t testing.TB, race bool) string {
	t.Helper()
	b := &builds[0]
	if race {
		b = &builds[1]
	}
	b.once.Do(func() {
		dirOnce.Do(func() { binDir, b.err = os.MkdirTemp("", "mcpguard-e2e-") })
		if b.err != nil {
			return
		}
		b.path = filepath.Join(binDir, "shop-server")
		args := []string{"build", "-o"}
		if race {
			b.path += "-race"
			args = append(args, b.path, "-race")
		} else {
			args = append(args, b.path)
		}
		if runtime.GOOS == "windows" {
			b.path += ".exe"
			args[2] = b.path
		}
		args = append(args, "./cmd/shop-server")
		cmd := exec.Command("go", args...)
		// Built from inside the example module, it works with and without
		// the repository's go.work.
		cmd.Dir = filepath.Join("..", "example")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func TestMain(m *testing.M) {
	// The children this test starts (the test binary run again as a
	// server, binaries built with -race) exit without the race runtime's
	// one-second sleep at exit, which each start and stop of a child
	// otherwise pays (it made most of this package's time under -race).
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// front is one of the shop server's two fronts: the same store, tools and
// hints served on mcp-go (shop.NewServer) or on the official go-sdk
// (shop.NewGoSDKServer), selected by shop-server's -sdk flag.
type front struct {
	name string
	args []string // shop-server's arguments selecting it
	// protocol is the version mcp-go's client asks for. go-sdk v1.8.0
	// does not know mcp-go's latest (2026-07-28), and mcp-go's client
	// then sends every request the sessionless way, which go-sdk refuses:
	// its client is given the newest version both know.
	protocol string
}

var fronts = []front{
	{"mcp-go", nil, mcp.LATEST_PROTOCOL_VERSION},
	{"go-sdk", []string{"-sdk", "go-sdk"}, mcp.ProtocolVersion20251125},
}

// forEachFront runs test once per front, in parallel subtests: every
// client must get the same answers from both.
func forEachFront(t *testing.T, test func(t *testing.T, f front)) {
	for _, f := range fronts {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			test(t, f)
		})
	}
}

// process is a shop-server started with -http, and its stderr.
type process struct {
	cmd    *exec.Cmd
	url    string
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

var listenLine = regexp.MustCompile(`listening on (http://\S+)`)

// startHTTP starts the server on a free loopback port and waits until it
// listens. The process is stopped when the test ends if it still runs.
func startHTTP(t testing.TB, args ...string) *process {
	t.Helper()
	return startHTTPWith(t, shopServer(t), args...)
}

// startHTTPWith is startHTTP with a given binary.
func startHTTPWith(t testing.TB, bin string, args ...string) *process {
	t.Helper()
	return launchHTTP(t, bin, args...).wait(t)
}

// launching is a server started and not yet listening.
type launching struct {
	p    *process
	urls chan string
}

// launchHTTP starts the server; wait waits until it listens. Servers
// launched together start side by side (under -race, a shop-server takes
// seconds to start).
func launchHTTP(t testing.TB, bin string, args ...string) *launching {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := listenLine.FindStringSubmatch(line); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return &launching{p: p, urls: urls}
}

// wait returns the server once it listens.
func (l *launching) wait(t testing.TB) *process {
	t.Helper()
	p, urls, cmd := l.p, l.urls, l.p.cmd
	select {
	case p.url = <-urls:
	case <-p.done:
		t.Fatalf("shop-server exited before listening: %v\n%s", p.err, p.log())
	case <-time.After(3 * time.Minute): // a hang guard, far above the usual 100 ms
		_ = cmd.Process.Kill()
		t.Fatalf("shop-server did not listen in time\n%s", p.log())
	}
	return p
}

func (p *process) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// alive reports whether the process is still running.
func (p *process) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop interrupts the server, as Ctrl-C would, and waits for a clean exit.
func (p *process) stop(t testing.TB) {
	t.Helper()
	if !p.alive() {
		t.Fatalf("shop-server had already exited: %v\n%s", p.err, p.log())
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(90 * time.Second): // a hang guard: the server may wait 15 s for its goroutines
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("shop-server did not stop on interrupt\n%s", p.log())
	}
	if p.err != nil {
		t.Fatalf("shop-server exited with %v\n%s", p.err, p.log())
	}
}

func withTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
