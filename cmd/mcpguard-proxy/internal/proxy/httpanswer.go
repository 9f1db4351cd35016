package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// This file reads the upstream's HTTP answer to a request (the reverse
// proxy's ModifyResponse, modify): a JSON answer or an event stream
// (events.go) rewritten message by message, an error page or a body the
// proxy does not read answered by the proxy, and an upstream that did not
// answer (the reverse proxy's ErrorHandler, failed).

// modify rewrites the upstream's answer to a tool call, learns from its
// answer to tools/list, and bounds every message of every answer.
func (h *HTTP) modify(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if x != nil && x.session != "" && (resp.StatusCode == http.StatusNotFound ||
		(resp.Request.Method == http.MethodDelete && resp.StatusCode < http.StatusMultipleChoices)) {
		h.tables.drop(x.caller) // the session ended: 404 says so, as does a DELETE the upstream took
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
			lr: rpc.NewLineReader(resp.Body, h.g.o.maxMessage)}
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
		out = h.oversize(resp.Request.Context(), x, b[:min(len(b), rpc.PeekBytes)])
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
	page, _ := io.ReadAll(io.LimitReader(resp.Body, rpc.PeekBytes))
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
		out = h.g.redactedJSON(h.g.o.redactor, b, out)
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
		out = h.oversize(resp.Request.Context(), x, b[:min(len(b), rpc.PeekBytes)])
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
		out = h.g.redactedJSON(h.g.o.redactor, out, out)
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
		return h.foreignAnswer(ctx, x.sessionID(), x.callerName(), b)
	}
	m, err := rpc.Parse(b)
	if err == nil && m.Method != "" {
		return h.g.serverMessage(h.tables.lookup(x.caller), m.Method, b) // the server's requests and notifications, untouched but a task's status text
	}
	if k, _ := rpc.IDKey(m.ID); err != nil || x.state.done || k != x.upKey {
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
func (h *HTTP) answerFor(ctx context.Context, c *call, id []byte, method string, b []byte, m *rpc.Message) (out []byte, relayed bool) {
	if c != nil {
		if out = h.g.answer(ctx, c, b, m); !same(out, b) {
			return out, false
		}
	} else if len(m.Error) > 0 {
		if red := h.g.redactedRPCError(h.g.o.redactor, id, m.Error); red != nil {
			return red, false
		}
	}
	out = rpc.WithID(b, m, id) // the client's id, as the client wrote it
	if safe := h.g.relayedTask(method, out); !same(safe, out) {
		return safe, false
	}
	return out, true
}

// oversize answers the exchange's tool call when its answer was too large;
// nil means the message is dropped.
func (h *HTTP) oversize(ctx context.Context, x *exchange, prefix []byte) []byte {
	id, method := rpc.Peek(prefix)
	safe.Log(ctx, h.g.o.logger, slog.LevelWarn, "mcpguard-proxy: dropped a server message over the size bound",
		slog.String(logkey.Method, method), slog.Int(logkey.Limit, h.g.o.maxMessage))
	if x == nil || x.id == nil {
		if method != "" {
			return nil
		}
		return h.foreignTooLarge(ctx, x.sessionID(), id) // resume.go
	}
	if k, ok := rpc.IDKey(id); x.state.done || !ok || k != x.upKey {
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
