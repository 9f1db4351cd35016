package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/limit"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// HTTP proxies clients of MCP's streamable HTTP transport to an upstream
// server of the same transport. It is an http.Handler.
type HTTP struct {
	g        *Guard
	upstream *url.URL
	rp       *httputil.ReverseProxy
	resume   resumable     // resume.go
	sent     sentRequests  // resume.go
	tables   sessionTables // each session's tools (tooltable.go)
	inflight inflight      // the requests in flight, for the client's cancellations
}

// NewHTTP returns a proxy in front of the streamable HTTP endpoint at
// upstream (http://host:port/path). It panics if upstream is not an http
// or https URL.
func NewHTTP(upstream string, opts ...Option) *HTTP {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		panic(fmt.Sprintf("proxy: NewHTTP(%q): the upstream must be an http:// or https:// URL", upstream))
	}
	h := &HTTP{g: newGuard(opts...), upstream: u}
	h.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.URL.Path, pr.Out.URL.RawPath = u.Scheme, u.Host, u.Path, u.RawPath
			pr.Out.Host = u.Host
			// The proxy must read what it rewrites: the client's
			// Accept-Encoding would get it an answer in gzip or br. Without
			// one, the transport asks for gzip itself and decodes it.
			pr.Out.Header.Del("Accept-Encoding")
		},
		FlushInterval:  -1, // stream events as they come
		BufferPool:     buffers{},
		ModifyResponse: h.modify,
		ErrorHandler:   h.failed,
		ErrorLog:       slog.NewLogLogger(h.g.o.logger.Handler(), slog.LevelWarn),
	}
	return h
}

// exchange is what the proxy knows of one POST while it is answered.
type exchange struct {
	id     []byte     // the request's id as the client wrote it, when it is a request
	up     []byte     // the id the proxy minted for it, which the upstream sees
	upKey  string     // its key (idKey)
	call   *call      // tools/call, and tasks/result (answered as the call that created the task)
	list   bool       // tools/list: learn from the answer
	tools  *toolTable // the session's tools, for tools/call, tools/list and tasks/result
	gen    uint64     // the tool table's generation when tools/list was sent
	method string     // the request's method
	state  *answered
	tr     *traced // the request's span; nil when nothing records

	session string // the request's Mcp-Session-Id
}

// sessionID is x's session, "" for none.
func (x *exchange) sessionID() string {
	if x == nil {
		return ""
	}
	return x.session
}

type answered struct{ done bool }

type exchangeKey struct{}

// ServeHTTP forwards r to the upstream, reading a POST's message first to
// know what the answer is for.
func (h *HTTP) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &tracked{ResponseWriter: rw}
	var x *exchange
	client := r.Context()
	defer func() { settle(client, w, x) }() // last: after a panic was answered
	defer func() {
		if p := recover(); p != nil {
			h.recovered(w, r, x, p)
		}
	}()
	if rebinding(r) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		h.rp.ServeHTTP(w, h.resuming(r))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.g.o.maxMessage)))
	if err != nil {
		h.requestTooLarge(w, r, body, err)
		return
	}
	m, err := readClient(body) // read.go: read once, as every server reads it
	if err != nil {
		h.refuseHTTP(w, r, body, &m, err) // refuse.go
		return
	}
	x = &exchange{state: &answered{}, session: r.Header.Get("Mcp-Session-Id")}
	ctx := r.Context()
	out := body
	switch {
	case m.isRequest():
		ck, ok := idKey(m.ID)
		if !ok {
			x = nil
			h.refuseHTTP(w, r, body, &m, nil)
			return
		}
		x.id = bytes.Clone(m.ID)
		x.up, x.upKey = h.g.ids.next()
		defer h.inflight.add(x.session, ck, x.up)()
		if h.g.in != nil {
			if x.tr = h.g.trace(ctx, &m, httpPeer(r)); x.tr != nil {
				ctx = x.tr.ctx
			}
		}
		out = withID(body, &m, x.up)
		h.sessionTools(x, m.Method)
		switch m.Method {
		case "tools/call":
			var end func()
			if ctx, end = h.startCall(ctx, w, r, &m, x); end == nil {
				return // refused, and answered
			}
			defer end()
			out = upstreamCall(x.up, x.call, &m) // what the proxy checked, as the proxy encodes it
		case "tools/list":
			x.list, x.gen = true, x.tools.gen.Load()
		case "tasks/result":
			x.call = h.g.taskCall(m.ID, m.Params, x.session)
			x.call.tools = x.tools
		}
		x.method = m.Method
		n, _ := h.g.ids.minted(x.up)
		h.sent.record(x, n) // its answer may come, or come again, on a GET stream (resume.go)
	case m.Method == "notifications/cancelled":
		if out = h.inflight.cancelled(x.session, m.Params); out == nil {
			w.WriteHeader(http.StatusAccepted) // not in flight: nothing to tell the upstream
			return
		}
	}
	r = r.WithContext(context.WithValue(ctx, exchangeKey{}, x))
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	h.rp.ServeHTTP(w, r)
}

// sessionTools gives x, a request of method, the tools of its session
// when it reads or learns them.
func (h *HTTP) sessionTools(x *exchange, method string) {
	switch method {
	case "tools/call", "tools/list", "tasks/result":
		x.tools = h.tables.of(x.session)
		if x.tr != nil {
			x.tr.tools = x.tools
		}
	}
}

// maxOwnLists bounds the proxy's own tools/list requests over HTTP
// between two changes of the server's tools: a server that never answers
// one costs a few calls a request each, not every call.
const maxOwnLists = 3

// startCall admits the tool call x, answering it when refused (end is
// then nil), and returns the context its upstream request runs in and
// what to do once it was answered.
func (h *HTTP) startCall(ctx context.Context, w http.ResponseWriter, r *http.Request, m *message, x *exchange) (context.Context, func()) {
	x.call = h.g.callOf(m, x.tools)
	h.listTools(r, x.call)
	x.call.session = x.session
	x.call.caller = httpCaller(r)
	if refusal := h.g.admit(ctx, x.call, clientKey(r)); refusal != nil {
		x.tr.answered(refusal, nil)
		writeJSON(w, http.StatusOK, refusal)
		return ctx, nil
	}
	deadline := time.Now().Add(h.g.o.timeout)
	stop := func() bool { return false }
	if x.call.slot != nil {
		// Under --concurrency, the upstream's request outlives a client
		// that hangs up: the server may still be running the call, which
		// keeps its slot until the server answers or the timeout passes.
		// The span ends when the client goes.
		stop = context.AfterFunc(ctx, func() { x.tr.cancelled() })
		ctx = context.WithoutCancel(ctx)
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	return ctx, func() {
		cancel()
		stop()
		h.g.release(x.call, x.state.done, deadline)
	}
}

// rebinding reports a request that reached a loopback listener under a
// Host that is not loopback: a DNS-rebinding attempt from a web page. The
// proxy sends the upstream its own Host, so an upstream's protection
// cannot see it; the proxy applies the rule go-sdk's servers apply.
func rebinding(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && loopback(local.String()) && !loopback(r.Host)
}

// loopback reports whether addr (host or host:port) is localhost or a
// loopback IP.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// recovered handles a panic while serving r: logged, and a tool call not
// yet answered gets an internal_error envelope, if nothing was written.
func (h *HTTP) recovered(w *tracked, r *http.Request, x *exchange, p any) {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	if x != nil && x.call != nil && !x.state.done && !w.wrote {
		x.state.done = true
		env := h.g.r.Recovered(r.Context(), x.call.tool, p, envelope.RecoverOptions{Stack: true})
		out := h.g.render(r.Context(), x.call, env)
		x.tr.answered(out, nil)
		writeJSON(w, http.StatusOK, out)
		return
	}
	safe.Log(r.Context(), h.g.o.logger, slog.LevelError, "mcpguard-proxy: recovered panic serving a request",
		slog.String(logkey.Panic, safe.Value(p)))
}

// tracked records whether a response was started.
type tracked struct {
	http.ResponseWriter
	wrote  bool
	status int // of the response, once started
}

func (t *tracked) WriteHeader(code int) {
	if !t.wrote {
		t.status = code
	}
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *tracked) Write(b []byte) (int, error) {
	if !t.wrote {
		t.status = http.StatusOK
	}
	t.wrote = true
	return t.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (which the reverse proxy flushes
// event streams with) reach the connection's writer.
func (t *tracked) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// clientKey is the rate limit's key of a client: core/limit's default,
// its network address (never an MCP session, which a client can mint).
func clientKey(r *http.Request) string { return limit.Key(limit.HTTPContext(r.Context(), r)) }

func (h *HTTP) requestTooLarge(w http.ResponseWriter, r *http.Request, prefix []byte, err error) {
	var tooLarge *http.MaxBytesError
	if !errors.As(err, &tooLarge) {
		http.Error(w, "reading the request failed", http.StatusBadRequest)
		return
	}
	id, method := peek(prefix)
	safe.Log(r.Context(), h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: refused a client message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, h.g.o.maxMessage))
	var tr *traced
	if h.g.in != nil && method != "" && hasID(id) {
		tr = h.g.trace(r.Context(), &message{ID: id, Method: method}, httpPeer(r))
	}
	if method == "tools/call" && hasID(id) {
		out := h.g.requestTooLarge(r.Context(), &call{id: id})
		tr.answered(out, nil)
		writeJSON(w, http.StatusOK, out)
		return
	}
	out := rpcError(id, -32600, "the message is larger than the proxy's limit of "+sizeText(h.g.o.maxMessage))
	tr.answered(out, nil)
	writeJSON(w, http.StatusRequestEntityTooLarge, out)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// modify rewrites the upstream's answer to a tool call, learns from its
// answer to tools/list, and bounds every message of every answer.
func (h *HTTP) modify(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if x != nil && x.session != "" && (resp.StatusCode == http.StatusNotFound ||
		(resp.Request.Method == http.MethodDelete && resp.StatusCode < http.StatusMultipleChoices)) {
		h.tables.drop(x.session) // the session ended: 404 says so, as does a DELETE the upstream took
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		// An encoding the transport did not decode (one the proxy never
		// asked for): never passed on unread.
		_ = resp.Body.Close()
		if x == nil || x.id == nil {
			return errors.New("the upstream's answer is in an encoding the proxy does not read: " + safe.Value(enc))
		}
		h.answerInstead(resp, x, h.unanswered(resp.Request.Context(), x, "the upstream answered in the encoding "+safe.Value(enc)))
		return nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		resp.Body = &events{h: h, x: x, ctx: resp.Request.Context(), body: resp.Body,
			lr: newLineReader(resp.Body, h.g.o.maxMessage)}
		resp.ContentLength = -1 // a rewritten event changes the length
		resp.Header.Del("Content-Length")
		return nil
	case "application/json":
		switch {
		case x != nil && x.id != nil:
			return h.modifyJSON(resp, x)
		case resp.StatusCode >= http.StatusBadRequest:
			return h.redactedError(resp)
		}
		return h.foreignJSON(resp, x)
	}
	switch {
	case resp.StatusCode >= http.StatusBadRequest:
		h.errorPage(resp, x)
	case resp.StatusCode >= http.StatusOK && resp.StatusCode < http.StatusMultipleChoices:
		h.unreadBody(resp, x, ct)
	}
	return nil
}

// foreignJSON reads a JSON answer to a request other than one the client
// expects a response to (a GET, a notification, a response): a JSON-RPC
// response in it answers no request on this stream, and is rewritten as
// the answer to the request it names (resume.go), or dropped.
func (h *HTTP) foreignJSON(resp *http.Response, x *exchange) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.g.o.maxMessage)+1))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	var out []byte
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		out = b
	case len(b) > h.g.o.maxMessage:
		out = h.oversize(resp.Request.Context(), x, b[:min(len(b), peekBytes)])
	default:
		out = h.message(resp.Request.Context(), x, b)
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// unreadBody handles a successful answer in a content type that is
// neither JSON nor an event stream, which the proxy does not read: never
// passed on. A request's is answered by the proxy; any other's body is
// dropped.
func (h *HTTP) unreadBody(resp *http.Response, x *exchange, ct string) {
	if x != nil && x.id != nil {
		_ = resp.Body.Close()
		h.answerInstead(resp, x, h.unanswered(resp.Request.Context(), x, "the upstream answered in the content type "+safe.Value(ct)))
		return
	}
	if resp.ContentLength == 0 {
		return
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, int64(h.g.o.maxMessage)))
	_ = resp.Body.Close()
	if n > 0 {
		safe.Log(resp.Request.Context(), h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped an upstream's answer in a content type it does not read",
			slog.String(logkey.Error, safe.Value(ct)), slog.Int(logkey.Bytes, int(n)))
	}
	resp.Header.Del("Content-Type")
	resp.Header.Set("Content-Length", "0")
	resp.Body = io.NopCloser(bytes.NewReader(nil))
	resp.ContentLength = 0
}

// errorPage answers for an upstream's HTTP error that is not JSON-RPC (a
// crash page, a proxy's or framework's error page: a stack trace, a DSN,
// a token), which is never relayed. A tool call's 5xx becomes an
// envelope (an HTTP 200: an envelope is a result), another request's a
// 502 with the proxy's JSON-RPC error; a 4xx keeps its status and headers
// (401 asks the client to authenticate, 404 to start a new session) with
// the proxy's own JSON-RPC error as the body. What the upstream wrote is
// logged, redacted.
func (h *HTTP) errorPage(resp *http.Response, x *exchange) {
	ctx := resp.Request.Context()
	page, _ := io.ReadAll(io.LimitReader(resp.Body, peekBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, int64(h.g.o.maxMessage)))
	_ = resp.Body.Close()
	why := "the upstream answered HTTP " + strconv.Itoa(resp.StatusCode)
	safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: the upstream answered with an HTTP error page",
		slog.Int(logkey.HTTPStatus, resp.StatusCode), slog.String(logkey.Error, h.g.o.redactor.Text(string(page))))
	if x != nil && x.id != nil && resp.StatusCode >= http.StatusInternalServerError {
		h.answerInstead(resp, x, h.unanswered(ctx, x, why))
		return
	}
	var id []byte
	if x != nil {
		id = x.id
	}
	// The exchange's span records the status, as for any HTTP error.
	replaceBody(resp, rpcError(id, -32603, why))
}

// redactedError passes an upstream's HTTP error in JSON that answers no
// request the proxy routes (a notification's, a response's) redacted, or
// the proxy's own error when it is over the bound.
func (h *HTTP) redactedError(resp *http.Response) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.g.o.maxMessage)+1))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	out := rpcError(nil, -32603, "the upstream answered HTTP "+strconv.Itoa(resp.StatusCode))
	if len(b) <= h.g.o.maxMessage {
		out = h.g.redactedJSON(b, out)
	}
	replaceBody(resp, out)
	return nil
}

// replaceBody makes out, JSON the proxy wrote or redacted, the response's
// body, keeping its status and the headers that are not the body's.
func replaceBody(resp *http.Response, out []byte) {
	for _, k := range []string{"Content-Encoding", "Content-Length", "Content-Type", "Transfer-Encoding"} {
		resp.Header.Del(k)
	}
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
}

// answerInstead makes out, the proxy's own JSON-RPC answer to x, the
// response: HTTP 200 for a tool call (an envelope is a result), 502 for
// anything else.
func (h *HTTP) answerInstead(resp *http.Response, x *exchange, out []byte) {
	resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	if x.call == nil {
		resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway"
	}
	resp.Header = http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(out))}}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
}

// unanswered answers x, which the upstream did not answer with a message
// the proxy could match to it, for why; nil when x was answered.
func (h *HTTP) unanswered(ctx context.Context, x *exchange, why string) []byte {
	if x.state.done {
		return nil
	}
	x.state.done = true
	var out []byte
	if x.call != nil {
		out = h.g.crashed(ctx, x.call, why)
	} else {
		safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: the upstream did not answer", slog.String(logkey.Error, why))
		out = rpcError(x.id, -32603, "the upstream server did not answer")
	}
	x.tr.answered(out, nil)
	return out
}

func (h *HTTP) modifyJSON(resp *http.Response, x *exchange) error {
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.g.o.maxMessage)+1))
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	var out []byte
	if len(b) > h.g.o.maxMessage {
		out = h.oversize(resp.Request.Context(), x, b[:min(len(b), peekBytes)])
	} else {
		out = h.message(resp.Request.Context(), x, b)
	}
	if out == nil {
		if out = h.unanswered(resp.Request.Context(), x, "the upstream's answer is not a response to the request"); out == nil {
			return errors.New("the upstream's answer is not a response to the request")
		}
		h.answerInstead(resp, x, out)
		return nil
	}
	if x.call != nil && resp.StatusCode >= http.StatusInternalServerError {
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK" // an envelope is a result
	}
	if x.call == nil && resp.StatusCode >= http.StatusBadRequest {
		// An error another request got in an HTTP error: what it says
		// passes (the client needs it), its secrets do not.
		out = h.g.redactedJSON(out, out)
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// message handles one message of an answer: the answer to the exchange's
// request is rewritten (tools/call) or learned from (tools/list); a
// response on a stream that is no request's own is rewritten as the
// answer to the request it names, or dropped (resume.go); anything else
// comes back as it is.
func (h *HTTP) message(ctx context.Context, x *exchange, b []byte) []byte {
	if x == nil || x.id == nil {
		return h.foreignAnswer(ctx, x.sessionID(), b)
	}
	m, err := parse(b)
	if err == nil && m.Method != "" {
		return h.g.serverMessage(h.tables.lookup(x.session), m.Method, b) // the server's requests and notifications, untouched but a task's status text
	}
	if k, _ := idKey(m.ID); err != nil || x.state.done || k != x.upKey {
		// On a request's own stream, only its answer is a response: this
		// one answers no request of the client's (or its request twice).
		safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server message that answers no request in flight",
			slog.Int(logkey.Bytes, len(b)))
		return nil
	}
	x.state.done = true
	if x.list && len(m.Result) > 0 {
		if out := h.g.listAnswer(x.id, m.Result, h.g.learn(x.tools, x.gen, m.Result)); out != nil {
			x.tr.answered(out, nil) // without the tools the pins hold back (pin.go)
			return out
		}
	}
	out, relayed := h.answerFor(ctx, x.call, x.id, x.method, b, &m)
	if relayed {
		x.tr.answered(out, &m)
	} else {
		x.tr.answered(out, nil)
	}
	return out
}

// answerFor rewrites b, the upstream's response m to the request the
// client sent under id (of method; c is its call, for tools/call and
// tasks/result): a call's answer as the guard rewrites it, another
// request's error redacted, and the client's id in place of the one the
// proxy minted. relayed reports that out is b but for its id.
func (h *HTTP) answerFor(ctx context.Context, c *call, id []byte, method string, b []byte, m *message) (out []byte, relayed bool) {
	if c != nil {
		if out = h.g.answer(ctx, c, b, m); !same(out, b) {
			return out, false
		}
	} else if len(m.Error) > 0 {
		if red := h.g.redactedRPCError(id, m.Error); red != nil {
			return red, false
		}
	}
	out = withID(b, m, id) // the client's id, as the client wrote it
	if safe := h.g.relayedTask(method, out); !same(safe, out) {
		return safe, false
	}
	return out, true
}

// oversize answers the exchange's tool call when its answer was too large;
// nil means the message is dropped.
func (h *HTTP) oversize(ctx context.Context, x *exchange, prefix []byte) []byte {
	id, method := peek(prefix)
	safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, h.g.o.maxMessage))
	if x == nil || x.id == nil {
		if method != "" {
			return nil
		}
		return h.foreignTooLarge(ctx, x.sessionID(), id) // resume.go
	}
	if k, ok := idKey(id); x.state.done || !ok || k != x.upKey {
		return nil
	}
	x.state.done = true
	var out []byte
	if x.call != nil {
		out = h.g.tooLarge(ctx, x.call)
	} else {
		out = rpcError(x.id, -32603, "the server's answer is larger than the proxy's limit of "+sizeText(h.g.o.maxMessage))
	}
	x.tr.answered(out, nil)
	return out
}

// failed answers a request the upstream did not: a tool call with an
// envelope (timed out, or the upstream unreachable), anything else with a
// 502.
func (h *HTTP) failed(w http.ResponseWriter, r *http.Request, err error) {
	x, _ := r.Context().Value(exchangeKey{}).(*exchange)
	if x != nil && x.call != nil && !x.state.done {
		x.state.done = true
		var out []byte
		if errors.Is(r.Context().Err(), context.DeadlineExceeded) {
			out = h.g.timedOut(r.Context(), x.call)
		} else {
			out = h.g.crashed(r.Context(), x.call, safe.Error(err))
		}
		if errors.Is(r.Context().Err(), context.Canceled) {
			x.tr.cancelled() // the client went away: it reads no answer
		}
		x.tr.answered(out, nil)
		writeJSON(w, http.StatusOK, out)
		return
	}
	safe.Log(r.Context(), h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: the upstream did not answer",
		slog.String(logkey.Error, safe.Error(err)))
	var id []byte
	if x != nil {
		id = x.id
	}
	out := rpcError(id, -32603, "the upstream server did not answer")
	if x != nil {
		if errors.Is(r.Context().Err(), context.Canceled) {
			x.tr.cancelled()
		}
		x.tr.answered(out, nil)
	}
	writeJSON(w, http.StatusBadGateway, out)
}

// settle ends the span of an exchange that no answer ended: the client
// went away (cancelled), or the upstream answered with an HTTP status and
// no JSON-RPC message (error.type is the status), or ended its event
// stream before it answered (SEP-1699 polling: the answer comes on
// another stream, and the span ends with the POST).
func settle(client context.Context, w *tracked, x *exchange) {
	if x == nil || x.tr == nil {
		return
	}
	switch {
	case w.status >= http.StatusMultipleChoices:
		// The upstream's error status was the answer, whether or not the
		// client hung up once it had it.
		x.tr.end(statusOutcome(w.status))
	case client.Err() != nil:
		x.tr.cancelled()
	case w.status == 0:
		x.tr.end(statusOutcome(http.StatusInternalServerError)) // nothing was written: a panic went on
	default:
		x.tr.end(statusOutcome(w.status))
	}
}

// httpPeer is what the span of r says of its client: its session and
// protocol version, from the headers of streamable HTTP.
func httpPeer(r *http.Request) peer {
	p := peer{transport: coreotel.TransportHTTP, version: protocolVersion(r.Header.Get("Mcp-Protocol-Version"))}
	if id := r.Header.Get("Mcp-Session-Id"); len(id) <= maxSessionID {
		p.session = id
	}
	return p
}

// maxSessionID bounds mcp.session.id: a session ID is visible ASCII, and
// one longer than this was not minted by a server.
const maxSessionID = 256

// buffers lends the reverse proxy its copy buffers, rather than a new
// 32 KiB one for every response.
type buffers struct{}

var bufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (buffers) Get() []byte  { return *bufferPool.Get().(*[]byte) }
func (buffers) Put(b []byte) { bufferPool.Put(&b) }

// inflight is the HTTP proxy's table of requests in flight, by session
// and the client's id, for the client's notifications/cancelled, which
// names the id the client wrote and must reach the upstream with the id
// the proxy minted.
type inflight struct {
	mu sync.Mutex
	m  map[string][]byte
}

// add notes a request in flight; the function it returns forgets it.
func (f *inflight) add(session, key string, up []byte) func() {
	k := session + "\x00" + key
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string][]byte{}
	}
	f.m[k] = up
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.m, k)
		f.mu.Unlock()
	}
}

// cancelled is the proxy's own notifications/cancelled for the client's,
// whose params name a request of session; nil when none is in flight.
func (f *inflight) cancelled(session string, params []byte) []byte {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	key, ok := idKey(p.RequestID)
	if !ok {
		return nil
	}
	f.mu.Lock()
	up, ok := f.m[session+"\x00"+key]
	f.mu.Unlock()
	if !ok {
		return nil
	}
	return cancelled(up, "the client cancelled the request")
}

// listTools has the proxy ask the upstream for its tools itself, every
// page (listing.go), in the client's session and with its headers, before
// the call c when it cannot check it otherwise: no listing came since the
// tools last changed, or c's tool is not among those the pages read so
// far list. Declared schemas are checked, unknown tools answered and pins
// enforced against the tools the server lists now. A failure is logged
// and the call goes on unchecked (refused with pins); the next call asks
// again, up to maxOwnLists times between two changes.
func (h *HTTP) listTools(r *http.Request, c *call) {
	t := h.g.tableOf(c)
	if !t.unseen(c.tool) || t.lists.Add(1) > maxOwnLists {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), min(listWait, h.g.o.timeout))
	defer cancel()
	l := ownListing{gen: t.gen.Load()}
	for {
		result := h.listPage(ctx, r, l.cursor)
		if result == nil || !h.g.ownPage(t, &l, result) {
			return
		}
	}
}

// listPage is the result of the proxy's own tools/list for the page
// cursor names, sent as r's client would send it; nil when it failed
// (logged).
func (h *HTTP) listPage(ctx context.Context, r *http.Request, cursor string) []byte {
	up, key := h.g.ids.next()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.upstream.String(), bytes.NewReader(ownListRequest(up, cursor)))
	if err != nil {
		return nil
	}
	for k, v := range r.Header {
		if k != "Content-Length" && k != "Accept-Encoding" {
			req.Header[k] = v
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rt := h.rp.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: its own tools/list failed", slog.String(logkey.Error, safe.Error(err)))
		return nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, int64(h.g.o.maxMessage)))
	for _, msg := range append(bytes.Split(b, []byte("\n")), b) {
		msg = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(msg), []byte("data:")))
		if m, err := parse(msg); err == nil && len(m.Result) > 0 {
			if k, _ := idKey(m.ID); k == key {
				return m.Result
			}
		}
	}
	return nil
}
