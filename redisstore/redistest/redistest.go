package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// InstallHint says how to get redis-server.
const InstallHint = "install it to run the Redis tests: apt-get install -y redis-server (Debian, Ubuntu), brew install redis (macOS)"

// Server is a running redis-server.
type Server struct {
	// Addr is its host:port on loopback.
	Addr string
	dir  string
	cmd  *exec.Cmd
	exit chan error
}

// Required reports whether a missing redis-server must fail tests rather
// than skip them: in CI, or with MCPGUARD_REQUIRE_REDIS=1.
func Required() bool {
	return os.Getenv("CI") != "" || os.Getenv("MCPGUARD_REQUIRE_REDIS") == "1"
}

// ErrNotInstalled is the error of [Run] on a machine without
// redis-server on its PATH.
var ErrNotInstalled = errors.New("redistest: redis-server not found on PATH; " + InstallHint)

// Start starts a redis-server for tb and stops it when tb ends. It skips
// tb when redis-server is missing, unless [Required].
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := Run(tb.TempDir())
	if errors.Is(err, ErrNotInstalled) && !Required() {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Stop() })
	return s
}

// Run starts a redis-server whose files go to dir, on a free loopback
// port; the caller stops it with [Server.Stop].
func Run(dir string) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, ErrNotInstalled
	}
	var err error
	for range 5 { // a port found free can be taken before redis binds it
		var port int
		if port, err = freePort(); err != nil {
			return nil, err
		}
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir}
		if err = s.start(); err == nil {
			return s, nil
		}
	}
	return nil, err
}

// URL is the server's address as a redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs redis-server on s.Addr and waits until it answers PING.
func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command("redis-server",
		"--bind", "127.0.0.1", "--port", port, "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--logfile", filepath.Join(s.dir, "redis-"+port+".log"))
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("redistest: start redis-server: %w", err)
	}
	s.exit = make(chan error, 1)
	go func(cmd *exec.Cmd, exit chan error) { exit <- cmd.Wait() }(s.cmd, s.exit)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.exit:
			s.cmd = nil
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis-"+port+".log"))
			return fmt.Errorf("redistest: redis-server on %s exited: %v\n%s", s.Addr, err, log)
		default:
		}
		if ping(s.Addr) == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = s.Stop()
	return fmt.Errorf("redistest: redis-server on %s did not answer PING within 10 s", s.Addr)
}

// ping sends PING to addr and expects PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("redistest: PING answered %q", line)
	}
	return nil
}

// Stop stops the server, if it runs, and waits for it to exit. A stopped
// server can be started again on the same port with [Server.Restart].
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	s.resume() // a paused process cannot exit
	_ = s.cmd.Process.Kill()
	<-s.exit
	s.cmd = nil
	return nil
}

// Restart starts a stopped server again on the same address, empty.
func (s *Server) Restart() error {
	if s.cmd != nil {
		return errors.New("redistest: Restart of a running server")
	}
	return s.start()
}

// Pause stops the process without ending it (SIGSTOP): a Redis that hangs,
// connections open and nothing answered, until [Server.Resume]. It fails
// on systems without SIGSTOP (Windows).
func (s *Server) Pause() error {
	if s.cmd == nil {
		return errors.New("redistest: Pause of a stopped server")
	}
	return s.pause()
}

// Resume continues a paused server.
func (s *Server) Resume() error {
	if s.cmd == nil {
		return errors.New("redistest: Resume of a stopped server")
	}
	return s.resume()
}
