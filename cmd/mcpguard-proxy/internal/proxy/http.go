package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
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
	// caller names who sent it (httpCaller's Name: its session, else its
	// credentials), whose tools its calls are checked against.
	caller string
}

// newExchange is the exchange of the request r.
func newExchange(r *http.Request) *exchange {
	c := httpCaller(r)
	return &exchange{state: &answered{}, session: c.Session, caller: c.Name()}
}

// callerName is x's caller, "" for none (and for an anonymous caller).
func (x *exchange) callerName() string {
	if x == nil {
		return ""
	}
	return x.caller
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
	m, err := rpc.ReadClient(body) // read once, as every server reads it (package rpc)
	if err != nil {
		h.refuseHTTP(w, r, body, &m, err) // refuse.go
		return
	}
	x = newExchange(r)
	ctx := r.Context()
	out := body
	switch {
	case m.IsRequest():
		ck, ok := rpc.IDKey(m.ID)
		if !ok {
			x = nil
			h.refuseHTTP(w, r, body, &m, nil)
			return
		}
		x.id = bytes.Clone(m.ID)
		x.up, x.upKey = h.g.ids.Next()
		if caller, ok := cancelScope(r); ok {
			defer h.inflight.add(caller, ck, x.up)()
		}
		if h.g.in != nil {
			if x.tr = h.g.trace(ctx, &m, httpPeer(r)); x.tr != nil {
				ctx = x.tr.ctx
			}
		}
		out = rpc.WithID(body, &m, x.up)
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
		n, _ := h.g.ids.Minted(x.up)
		h.sent.record(x, n) // its answer may come, or come again, on a GET stream (resume.go)
	case m.Method == "notifications/cancelled":
		if out = h.cancellation(r, m.Params); out == nil {
			w.WriteHeader(http.StatusAccepted) // not in flight: nothing to tell the upstream
			return
		}
	}
	r = r.WithContext(context.WithValue(ctx, exchangeKey{}, x))
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	h.rp.ServeHTTP(w, r)
}

// sessionTools gives x, a request of method, the tools of its caller
// (its session, else its credentials) when it reads or learns them.
func (h *HTTP) sessionTools(x *exchange, method string) {
	switch method {
	case "tools/call", "tools/list", "tasks/result":
		x.tools = h.tables.of(x.caller)
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
func (h *HTTP) startCall(ctx context.Context, w http.ResponseWriter, r *http.Request, m *rpc.Message, x *exchange) (context.Context, func()) {
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
	id, method := rpc.Peek(prefix)
	safe.Log(r.Context(), h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: refused a client message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, h.g.o.maxMessage))
	var tr *traced
	if h.g.in != nil && method != "" && rpc.HasID(id) {
		tr = h.g.trace(r.Context(), &rpc.Message{ID: id, Method: method}, httpPeer(r))
	}
	if method == "tools/call" && rpc.HasID(id) {
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

// cancellation is the notifications/cancelled to send the upstream for
// the client's, r, whose params are params: under the id the proxy minted
// for the request it names, if that is one of its caller's in flight; nil
// for none.
func (h *HTTP) cancellation(r *http.Request, params []byte) []byte {
	s, ok := cancelScope(r)
	if !ok {
		return nil
	}
	return h.inflight.cancelled(s, params)
}

// cancelScope is whose requests r's notifications/cancelled may name, and
// whose request r is: its session and its credentials, as the
// repeated-failure guard tells callers apart (httpCaller). False for a
// request of MCP 2026-07-28 or later without a session: that revision has
// no sessions and cancels a request over HTTP by ending its stream, which
// the proxy passes on, so a notification naming such a request by its id
// could only come from whoever guessed the id, another client as well.
func cancelScope(r *http.Request) (scope, bool) {
	s := scope{session: r.Header.Get("Mcp-Session-Id"), credential: r.Header.Get("Authorization")}
	return s, s.session != "" || r.Header.Get("Mcp-Protocol-Version") < firstMultiRoundTrip
}

// scope is a caller of the HTTP proxy, as cancelScope reads it.
type scope struct{ session, credential string }

// key is where a request of s whose id has the key id is kept in flight:
// one string, made in one allocation.
func (s scope) key(id string) string { return s.session + "\x00" + s.credential + "\x00" + id }

// inflight is the HTTP proxy's table of requests in flight, by caller
// (cancelScope) and the client's id, for the client's
// notifications/cancelled, which names the id the client wrote and must
// reach the upstream with the id the proxy minted.
type inflight struct {
	mu sync.Mutex
	m  map[string][]byte
}

// add notes a request of the caller scope in flight; the function it
// returns forgets it.
func (f *inflight) add(s scope, key string, up []byte) func() {
	k := s.key(key)
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
// whose params name a request of the caller scope; nil when none is in
// flight.
func (f *inflight) cancelled(s scope, params []byte) []byte {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	key, ok := rpc.IDKey(p.RequestID)
	if !ok {
		return nil
	}
	f.mu.Lock()
	up, ok := f.m[s.key(key)]
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
		result := h.listPage(ctx, r, l.cursor, c.params)
		if result == nil || !h.g.ownPage(t, &l, result) {
			return
		}
	}
}

// The headers of MCP 2026-07-28 (SEP-2243) that mirror one request's body:
// its method, the name it calls, and the tool parameters a tool asks to see
// as headers. A server checks them against the body, and refuses a request
// whose headers name another.
const (
	headerMethod      = "Mcp-Method"
	headerName        = "Mcp-Name"
	headerParamPrefix = "Mcp-Param-"
)

// listHeaders sets dst, the headers of the proxy's own tools/list, to
// those of the client's request src (its session, version, credentials),
// without those that describe src's body (its length, its method, the
// tool it calls and that tool's parameters): a tools/list that carried a
// tools/call's Mcp-Method and Mcp-Name would be refused by a 2026-07-28
// server, and no call of the session would be checked until its client
// listed the tools itself.
func listHeaders(dst, src http.Header) {
	for k, v := range src {
		switch {
		case k == "Content-Length", k == "Accept-Encoding", k == headerMethod, k == headerName,
			strings.HasPrefix(k, headerParamPrefix):
		default:
			dst[k] = v
		}
	}
	if src.Get(headerMethod) != "" {
		dst.Set(headerMethod, "tools/list")
	}
	dst.Set("Content-Type", "application/json")
	dst.Set("Accept", "application/json, text/event-stream")
}

// listPage is the result of the proxy's own tools/list for the page
// cursor names, sent as r's client would send it (params are r's call's);
// nil when it failed (logged).
func (h *HTTP) listPage(ctx context.Context, r *http.Request, cursor string, params []byte) []byte {
	up, key := h.g.ids.Next()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.upstream.String(), bytes.NewReader(ownListRequest(up, cursor, params)))
	if err != nil {
		return nil
	}
	listHeaders(req.Header, r.Header)
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
	if resp.StatusCode != http.StatusOK {
		safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: its own tools/list failed",
			slog.String(logkey.Error, "the server answered "+resp.Status))
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, int64(h.g.o.maxMessage)))
	for _, msg := range append(bytes.Split(b, []byte("\n")), b) {
		msg = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(msg), []byte("data:")))
		if m, err := rpc.Parse(msg); err == nil && len(m.Result) > 0 {
			if k, _ := rpc.IDKey(m.ID); k == key {
				return m.Result
			}
		}
	}
	return nil
}
