package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// stdioServer is a server started over stdio whose every message is
// bounded: mcp-go's stdio transport reads whole lines without a limit, so
// the command starts the process itself and hands the transport a reader
// that ends the stream at the first line longer than the limit.
type stdioServer struct {
	cmd    *exec.Cmd
	kill   context.CancelFunc
	stdout *lineLimit
	client *client.Client
	once   sync.Once
	exited chan struct{}
}

// startStdio starts command with its stderr copied to errOut by os/exec,
// so that once the server has exited every byte it wrote is in errOut:
// no sleeping in the hope that a copying goroutine has caught up.
// WaitDelay bounds the wait for a grandchild that keeps the pipe open.
func startStdio(command string, args []string, errOut io.Writer, maxLine int, sniff *errorSniffer) (*stdioServer, error) {
	ctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Stderr = errOut
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		kill()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		kill()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		kill()
		return nil, err
	}
	s := &stdioServer{cmd: cmd, kill: kill, stdout: &lineLimit{r: stdout, max: maxLine, sniff: sniff}, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	tr := transport.NewIO(s.stdout, stdin, nil)
	s.client = client.NewClient(tr)
	if err := s.client.Start(context.Background()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the server's stdin, gives it a moment to exit, kills it if
// it does not, and returns once it has exited and its stderr is copied.
func (s *stdioServer) Close() error {
	s.once.Do(func() {
		_ = s.client.Close()
		if s.stdout.Err() != nil {
			s.kill() // it is still writing the line that was cut
		}
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
			s.kill()
			<-s.exited
		}
		s.kill()
	})
	return nil
}

// explain replaces a transport error by the reason the stream was cut, if
// it was.
func (s *stdioServer) explain(err error) error {
	if cut := s.stdout.Err(); cut != nil {
		return cut
	}
	return err
}

// errLineTooLong reports a message over the --max-message limit.
type errLineTooLong struct{ max int }

func (e errLineTooLong) Error() string {
	return fmt.Sprintf("the server sent a message longer than %d bytes (--max-message); the connection was closed", e.max)
}

// lineLimit passes a newline-delimited stream through until a line is
// longer than max, and then ends it. It reports io.EOF to the transport,
// which stops reading quietly, and keeps the real reason for Err.
type lineLimit struct {
	r     io.Reader
	max   int
	line  int // bytes of the current line so far
	sniff *errorSniffer

	mu  sync.Mutex
	err error
}

func (l *lineLimit) Read(p []byte) (int, error) {
	if l.Err() != nil {
		return 0, io.EOF
	}
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.line = 0
			continue
		}
		l.line++
		if l.line > l.max {
			l.mu.Lock()
			l.err = errLineTooLong{l.max}
			l.mu.Unlock()
			return 0, io.EOF
		}
	}
	l.sniff.Write(p[:n])
	return n, err
}

// Err returns why the stream was cut, or nil.
func (l *lineLimit) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// limitedBodies bounds every HTTP response body the streamable HTTP
// transport reads, for the same reason as lineLimit.
type limitedBodies struct {
	base  http.RoundTripper
	max   int64
	sniff *errorSniffer
}

func (t limitedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{ReadCloser: resp.Body, left: t.max, max: t.max, sniff: t.sniff}
	return resp, nil
}

type limitedBody struct {
	io.ReadCloser
	left, max int64
	sniff     *errorSniffer
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errLineTooLong{int(b.max)}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	b.sniff.Write(p[:n])
	if err != nil {
		b.sniff.Flush()
	}
	return n, err
}
