package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/envelope"
	"github.com/mcpguard/mcpguard/middleware"
	"github.com/mcpguard/mcpguard/middleware/middlewaretest"
)

// loggedServer serves one tool per outcome a client can see, behind the
// given layers.
func loggedServer(t *testing.T, layers ...server.ToolHandlerMiddleware) *middlewaretest.Server {
	t.Helper()
	s := newServer(layers...)
	add := func(name string, h server.ToolHandlerFunc) { s.AddTool(mcp.NewTool(name), h) }
	add("shop_ok", ok)
	add("shop_missing", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.ErrNotFound
	})
	add("shop_panic", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
	add("shop_legacy", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("out of stock"), nil
	})
	add("shop_raw", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("database unreachable")
	})
	add("shop_nothing", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	return middlewaretest.FromServer(t, s)
}

// record returns the one Logging record of tool, failing the test when
// there is not exactly one.
func record(t *testing.T, logs *middlewaretest.Log, tool string) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, r := range logs.Records() {
		if r["msg"] == middleware.LogMessage && r[middleware.LogKeyTool] == tool {
			found = append(found, r)
		}
	}
	require.Len(t, found, 1, "records of %s", tool)
	return found[0]
}

// Each record says what the client received: its outcome, and for an
// envelope its error_type and incident_id, at the level that outcome
// deserves; the raw error of a protocol error is logged, a success carries
// no error attribute.
func TestLoggingRecordsWhatTheClientReceived(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	srv := loggedServer(t, middleware.Default(middleware.WithLogger(logs.Logger()))...)
	srv.CallTool("shop_ok", nil).ExpectSuccess()
	srv.CallTool("shop_missing", nil).ExpectError(envelope.NotFound)
	panicked := srv.CallTool("shop_panic", nil).ExpectError(envelope.InternalError)
	srv.CallTool("shop_legacy", nil).ExpectError(envelope.ExecutionFailed)

	okRec := record(t, logs, "shop_ok")
	assert.Equal(t, "INFO", okRec["level"])
	assert.Equal(t, "success", okRec[middleware.LogKeyOutcome])
	for _, k := range []string{middleware.LogKeyErrorType, middleware.LogKeyIncidentID, middleware.LogKeyError, middleware.LogKeyArguments} {
		assert.NotContains(t, okRec, k, "a successful call's record")
	}

	missing := record(t, logs, "shop_missing")
	assert.Equal(t, "WARN", missing["level"])
	assert.Equal(t, "tool_error", missing[middleware.LogKeyOutcome])
	assert.Equal(t, "not_found", missing[middleware.LogKeyErrorType])
	assert.NotContains(t, missing, middleware.LogKeyIncidentID, "a not_found envelope has no incident")
	assert.NotContains(t, missing, middleware.LogKeyError, "a tool error reached the client as a result")

	p := record(t, logs, "shop_panic")
	assert.Equal(t, "ERROR", p["level"], "an internal_error is always logged at Error")
	assert.Equal(t, "internal_error", p[middleware.LogKeyErrorType])
	assert.Equal(t, panicked.Envelope.IncidentID, p[middleware.LogKeyIncidentID])

	assert.Equal(t, "execution_failed", record(t, logs, "shop_legacy")[middleware.LogKeyErrorType])
}

// Without the envelope layer, Logging still tells a protocol error (an
// error, or neither result nor error) from a tool error result without an
// envelope, and logs the error the handler returned.
func TestLoggingAloneTellsProtocolErrorsFromToolErrors(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	srv := loggedServer(t, middleware.Logging(logs.Logger()))
	srv.CallTool("shop_raw", nil).ExpectProtocolError(mcp.INTERNAL_ERROR)
	require.NotNil(t, srv.CallTool("shop_nothing", nil).ProtocolError, "mcp-go answers a (nil, nil) with a JSON-RPC error")
	legacy := srv.CallTool("shop_legacy", nil)
	require.True(t, legacy.IsError())

	raw := record(t, logs, "shop_raw")
	assert.Equal(t, "ERROR", raw["level"])
	assert.Equal(t, "protocol_error", raw[middleware.LogKeyOutcome])
	assert.Equal(t, "database unreachable", raw[middleware.LogKeyError])

	nothing := record(t, logs, "shop_nothing")
	assert.Equal(t, "ERROR", nothing["level"])
	assert.Equal(t, "protocol_error", nothing[middleware.LogKeyOutcome])
	assert.NotContains(t, nothing, middleware.LogKeyError, "there was no error to log")

	l := record(t, logs, "shop_legacy")
	assert.Equal(t, "WARN", l["level"])
	assert.Equal(t, "tool_error", l[middleware.LogKeyOutcome])
	assert.NotContains(t, l, middleware.LogKeyErrorType, "an error result without an envelope has no error_type")
}

// jsonLog is a JSON logger at level, and the records it wrote.
type jsonLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (j *jsonLog) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(writerFunc(func(p []byte) (int, error) {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.buf.Write(p)
	}), &slog.HandlerOptions{Level: level}))
}

// levels returns the level of each of Logging's records, by tool (Default's
// recover layer writes an incident record of its own too).
func (j *jsonLog) levels(t *testing.T) map[string]string {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(j.buf.Bytes()))
	for dec.More() {
		var r map[string]any
		require.NoError(t, dec.Decode(&r))
		if r["msg"] == middleware.LogMessage {
			out[r[middleware.LogKeyTool].(string)] = r["level"].(string)
		}
	}
	return out
}

// WithLevels moves successes and tool errors to the levels asked for; an
// internal_error and a protocol error stay at Error; and a record below
// the handler's level is not written at all.
func TestWithLevelsSetsSuccessAndToolErrorLevels(t *testing.T) {
	t.Parallel()
	var debug, info jsonLog
	for _, j := range []struct {
		log   *jsonLog
		level slog.Level
	}{{&debug, slog.LevelDebug}, {&info, slog.LevelInfo}} {
		srv := loggedServer(t, middleware.Logging(j.log.logger(j.level), middleware.WithLevels(slog.LevelDebug, slog.LevelError)))
		for _, tool := range []string{"shop_ok", "shop_legacy", "shop_raw"} {
			srv.CallTool(tool, nil)
		}
	}
	assert.Equal(t, map[string]string{"shop_ok": "DEBUG", "shop_legacy": "ERROR", "shop_raw": "ERROR"}, debug.levels(t))
	assert.Equal(t, map[string]string{"shop_legacy": "ERROR", "shop_raw": "ERROR"}, info.levels(t), "a success at Debug is below an Info handler")

	var def jsonLog
	srv := loggedServer(t, middleware.Default(middleware.WithLogger(def.logger(slog.LevelDebug), middleware.WithLevels(slog.LevelDebug, slog.LevelInfo)))...)
	srv.CallTool("shop_missing", nil).ExpectError(envelope.NotFound)
	srv.CallTool("shop_panic", nil).ExpectError(envelope.InternalError)
	assert.Equal(t, map[string]string{"shop_missing": "INFO", "shop_panic": "ERROR"}, def.levels(t))
}

// The logged arguments are the JSON the client sent, byte for byte but
// for what is masked: the order of its members and integers past 2^53
// survive (a decoded map would sort the one and round the other), and a
// call without arguments logs {}.
func TestLoggingArgumentsAreWhatTheClientSent(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	srv := middlewaretest.New(t, mcp.NewTool("shop_order"), ok, middleware.Logging(logs.Logger(), middleware.WithArguments()))
	srv.Call(json.RawMessage(`{"sku":"A-1","order_id":9007199254740993,"password":"hunter2"}`)).ExpectSuccess()
	srv.Call(nil).ExpectSuccess()

	recs := logs.Records()
	require.Len(t, recs, 2)
	assert.Equal(t, `{"sku":"A-1","order_id":9007199254740993,"password":"[REDACTED]"}`, recs[0][middleware.LogKeyArguments])
	assert.Equal(t, `{}`, recs[1][middleware.LogKeyArguments])
}

// A Go caller that builds the request itself (Wrap, or a handler called
// directly) sets Arguments and no raw JSON: those are logged, masked; and
// arguments JSON cannot encode are logged as such, without failing the
// call.
func TestLoggingArgumentsOfACallBuiltInGo(t *testing.T) {
	t.Parallel()
	logs := middlewaretest.NewLog(t)
	h := middleware.Wrap(ok, middleware.Logging(logs.Logger(), middleware.WithArguments()))
	call := func(args any) {
		var req mcp.CallToolRequest
		req.Params.Name = "shop_login"
		req.Params.Arguments = args
		res, err := h(context.Background(), req)
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	call(map[string]any{"user": "bob", "api_key": "live-123"})
	call(map[string]any{"callback": func() {}})

	recs := logs.Records()
	require.Len(t, recs, 2)
	assert.Equal(t, `{"api_key":"[REDACTED]","user":"bob"}`, recs[0][middleware.LogKeyArguments])
	assert.Equal(t, `<unencodable>`, recs[1][middleware.LogKeyArguments])
}
