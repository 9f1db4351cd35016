package gosdktest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/wiretest"
	"github.com/mcpguard/mcpguard/gosdk"
)

// Session is a real go-sdk client connected to a server, recording the
// JSON-RPC response of each tools/call as it arrived. It is safe for
// concurrent use; calls on one Session are serialized (open one Session per
// concurrent client).
type Session struct {
	tb   testing.TB
	cs   *mcp.ClientSession
	conn *recorder
	mu   *sync.Mutex // shared by the views For returns
	// probe watches the server's chain; nil for Dial, which has no
	// server to watch.
	probe *probe
}

// Connect connects a go-sdk client to s through go-sdk's in-memory
// transport, as a stdio client would be, and closes both ends when the
// test ends. Install your tools on s before or after, and your middleware
// before: the client sees s as it is at each call.
//
// Connect adds a probe to s, outermost, and [Session.Call] fails the test
// when a tool call reaches gosdk.Middleware through a middleware added
// after it (outside it, so unguarded: its errors go out as JSON-RPC errors
// with their raw text, its panics end the process), unless
// [AllowMiddlewareOutside] says it is meant to be there. The probe cannot
// see middleware added after Connect, nor an outside middleware that
// answers a server's very first tool call itself.
func Connect(tb testing.TB, s *mcp.Server, opts ...ConnectOption) *Session {
	tb.Helper()
	if s == nil {
		tb.Fatal("gosdktest: Connect with a nil server")
	}
	var co connectOptions
	for _, o := range opts {
		if o != nil {
			o(&co)
		}
	}
	p := &probe{}
	if !co.allowOutside {
		s.AddReceivingMiddleware(p.middleware)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatalf("gosdktest: server Connect: %v", err)
	}
	p.session.Store(ss)
	out := dial(tb, ct)
	out.probe = p
	tb.Cleanup(func() {
		_ = out.cs.Close() // the server session ends when its client does
		_ = ss.Wait()
	})
	return out
}

// Dial connects a go-sdk client through t, any client transport (e.g.
// &mcp.StreamableClientTransport{Endpoint: srv.URL} for a server behind
// mcp.NewStreamableHTTPHandler and httptest), and closes the session when
// the test ends.
func Dial(tb testing.TB, t mcp.Transport) *Session {
	tb.Helper()
	s := dial(tb, t)
	tb.Cleanup(func() { _ = s.cs.Close() })
	return s
}

func dial(tb testing.TB, t mcp.Transport) *Session {
	tb.Helper()
	rec := &recorder{}
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdktest", Version: "0.0.0"}, nil)
	cs, err := client.Connect(context.Background(), transport{t, rec}, nil)
	if err != nil {
		tb.Fatalf("gosdktest: client Connect: %v", err)
	}
	return &Session{tb: tb, cs: cs, conn: rec, mu: new(sync.Mutex)}
}

// For returns a view of s that reports its failures to tb: the same
// connection, for a subtest or a fuzz target, whose *testing.T is not the
// one that connected (a fuzz target must not report to its *testing.F).
// Calls through every view of a Session are serialized.
func (s *Session) For(tb testing.TB) *Session {
	return &Session{tb: tb, cs: s.cs, conn: s.conn, mu: s.mu, probe: s.probe}
}

// ClientSession returns the go-sdk client session, for calls the Session
// has no method for.
func (s *Session) ClientSession() *mcp.ClientSession { return s.cs }

// Close closes the client session; the test's cleanup closes it too.
func (s *Session) Close() error { return s.cs.Close() }

// Call calls the named tool with args and returns what the client
// received. args is encoded as JSON, so a struct, a map or nil (no
// arguments) all work; a json.RawMessage is sent verbatim, to test
// arguments of the wrong shape: json.RawMessage(`{"limit":"ten"}`).
func (s *Session) Call(name string, args any) *Result {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	raw := s.conn.take()
	if msg := s.probe.take(); msg != "" {
		s.tb.Errorf("gosdktest: %s", msg)
	}
	if raw == nil {
		s.tb.Fatalf("gosdktest: %s: no response (client error: %v)", name, err)
	}
	w, derr := wiretest.Decode(s.tb, name, raw, args)
	if derr != nil {
		s.tb.Fatalf("gosdktest: %v", derr)
	}
	r := &Result{w: w, Tool: name, Raw: raw, Envelope: w.Envelope}
	var pe *jsonrpc.Error
	switch {
	case errors.As(err, &pe):
		r.ProtocolError = pe
	case err != nil:
		s.tb.Fatalf("gosdktest: %s: client error %v for response %s", name, err, raw)
	default:
		r.CallResult = res
	}
	return r
}

// ListTools returns the tools as tools/list sends them, each as raw JSON.
func (s *Session) ListTools() []json.RawMessage {
	s.tb.Helper()
	var out []json.RawMessage
	for t, err := range s.cs.Tools(context.Background(), nil) {
		if err != nil {
			s.tb.Fatalf("gosdktest: tools/list: %v", err)
		}
		b, err := json.Marshal(t)
		if err != nil {
			s.tb.Fatalf("gosdktest: encoding tool %q: %v", t.Name, err)
		}
		out = append(out, b)
	}
	return out
}

// transport wraps a client transport so that its connection records.
type transport struct {
	mcp.Transport
	rec *recorder
}

func (t transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.rec.Connection = c
	return t.rec, nil
}

// recorder is a client connection that keeps the encoding of the response
// to the tools/call request in flight.
type recorder struct {
	mcp.Connection
	mu      sync.Mutex
	pending jsonrpc.ID
	waiting bool
	raw     []byte
}

func (r *recorder) Write(ctx context.Context, m jsonrpc.Message) error {
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == "tools/call" && req.IsCall() {
		r.mu.Lock()
		r.pending, r.waiting, r.raw = req.ID, true, nil
		r.mu.Unlock()
	}
	return r.Connection.Write(ctx, m)
}

func (r *recorder) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := r.Connection.Read(ctx)
	if resp, ok := m.(*jsonrpc.Response); ok && err == nil {
		r.mu.Lock()
		if r.waiting && resp.ID == r.pending {
			r.raw, _ = jsonrpc.EncodeMessage(resp)
			r.waiting = false
		}
		r.mu.Unlock()
	}
	return m, err
}

// take returns and forgets the recorded response.
func (r *recorder) take() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	raw := r.raw
	r.raw, r.waiting = nil, false
	return raw
}

// Result is what a client received for one tools/call. Its Expect methods
// report failures with t.Errorf and return the Result, so checks chain:
//
//	s.Call("shop_get", args).ExpectError(gosdk.NotFound).ExpectNextStep("shop_search").NoLeak(dsnPassword)
type Result struct {
	w *wiretest.Response

	// Tool is the name of the tool called.
	Tool string
	// Raw is the whole JSON-RPC response, as the transport delivered it.
	// NoLeak searches it.
	Raw []byte
	// ProtocolError is set when the server answered with a JSON-RPC error
	// instead of a result. A tool failure must never do that.
	ProtocolError *jsonrpc.Error
	// CallResult is the result as the go-sdk client decoded it; nil on a
	// protocol error.
	CallResult *mcp.CallToolResult
	// Envelope is the decoded envelope of an isError result; nil on
	// success or when the error result carries none.
	Envelope *gosdk.Envelope
}

// IsError reports whether the result has isError: true.
func (r *Result) IsError() bool { return r.w.IsError() }

// Text returns the text content items of the result, joined by newlines.
func (r *Result) Text() string { return r.w.Text() }

// StructuredContent returns the result's structuredContent as raw JSON, or
// nil when the result has none.
func (r *Result) StructuredContent() json.RawMessage { return r.w.StructuredContent() }

// ExpectSuccess checks that the call succeeded: a result without isError.
func (r *Result) ExpectSuccess() *Result {
	r.w.TB.Helper()
	r.w.ExpectSuccess()
	return r
}

// ExpectError checks that the call failed the way mcpguard promises: a
// result (never a JSON-RPC error) with isError: true whose first content
// item is text holding a valid envelope, decoded strictly (no unknown
// member, success false, a known error_type, a next_steps array, at least
// one step), with the given error_type, naming the tool; and whose
// structuredContent, when present, is the same envelope member by member.
func (r *Result) ExpectError(code gosdk.Code) *Result {
	r.w.TB.Helper()
	r.w.ExpectError(code)
	return r
}

// ExpectProtocolError checks that the server answered with a JSON-RPC error
// of the given code, as it should for an unknown tool.
func (r *Result) ExpectProtocolError(code int) *Result {
	r.w.TB.Helper()
	r.w.ExpectProtocolError(code)
	return r
}

// ExpectMessage checks that the envelope's message contains substr.
func (r *Result) ExpectMessage(substr string) *Result {
	r.w.TB.Helper()
	r.w.ExpectMessage(substr)
	return r
}

// ExpectNextStep checks that a next step contains substr. On an error it
// searches the envelope's next_steps; on a success, the result's text,
// where success hints appear.
func (r *Result) ExpectNextStep(substr string) *Result {
	r.w.TB.Helper()
	r.w.ExpectNextStep(substr)
	return r
}

// ExpectField checks that the envelope lists field with the given rule
// among its field errors. An empty rule matches any rule.
func (r *Result) ExpectField(field, rule string) *Result {
	r.w.TB.Helper()
	r.w.ExpectField(field, rule)
	return r
}

// Field returns the envelope's field error for field, or nil.
func (r *Result) Field(field string) *gosdk.FieldError { return r.w.Field(field) }

// NoLeak checks that the raw response holds no stack trace, no source
// position, no absolute file path, no panic detail, no secret shape and
// none of the given secrets; see [Leaks]. A path the call's own arguments
// hold is no leak: the client sent it, and the redactor keeps it.
func (r *Result) NoLeak(secrets ...string) *Result {
	r.w.TB.Helper()
	r.w.NoLeak(secrets...)
	return r
}

// Leaks lists what raw, a response as sent on the wire, gives away: a Go
// stack trace or goroutine dump, a file.go:123 position, a panic or runtime
// error, an absolute file path, a secret shape, or any of secrets. It
// returns nil when nothing leaks. The patterns are the ones the redactor
// removes, from the one list mcpguard keeps.
func Leaks(raw []byte, secrets ...string) []string { return wiretest.Leaks(raw, nil, secrets) }

// Log is a logger for the middleware under test that writes each record
// to the test's log instead of stderr and keeps the records for
// assertions:
//
//	log := gosdktest.NewLog(t)
//	server.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLogger(log.Logger())))
//	r := s.Call("x", nil).ExpectError(gosdk.InternalError)
//	log.ExpectIncident(r, "nil map")
type Log struct{ l *wiretest.Log }

// NewLog returns a Log writing to tb's log.
func NewLog(tb testing.TB) *Log { return &Log{wiretest.NewLog(tb)} }

// Logger returns the logger to give the middleware.
func (l *Log) Logger() *slog.Logger { return l.l.Logger() }

// Records returns the records logged so far, each as its JSON object.
func (l *Log) Records() []map[string]any { return l.l.Records() }

// Find returns the first record whose attribute key is the string value,
// or nil.
func (l *Log) Find(key, value string) map[string]any { return l.l.Find(key, value) }

// ExpectIncident checks that r carries an incident ID and that the server
// logged a record under it whose attributes contain each of details.
func (l *Log) ExpectIncident(r *Result, details ...string) map[string]any {
	r.w.TB.Helper()
	return l.l.ExpectIncident(r.w, details...)
}
