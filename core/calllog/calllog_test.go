package calllog_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/wiretest"
)

// record writes c through a Logger built with opts and returns the one
// record it wrote.
func record(t *testing.T, c calllog.Call, opts ...calllog.Option) map[string]any {
	t.Helper()
	logs := wiretest.NewLog(t)
	calllog.New(logs.Logger(), opts...).Record(context.Background(), c)
	recs := logs.Records()
	require.Len(t, recs, 1)
	return recs[0]
}

// attrs returns the record without the handler's own keys and without
// the duration, whose value varies.
func attrs(rec map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range rec {
		switch k {
		case slog.TimeKey, slog.MessageKey, calllog.KeyDuration:
		default:
			out[k] = v
		}
	}
	return out
}

func TestRecordOfEachOutcome(t *testing.T) {
	notFound := &envelope.Envelope{ErrorType: envelope.NotFound, Message: "no such product"}
	internal := &envelope.Envelope{ErrorType: envelope.InternalError, IncidentID: "inc-1"}
	for _, tc := range []struct {
		name string
		call calllog.Call
		want map[string]any
	}{
		{"success", calllog.Call{Tool: "shop_get", Outcome: calllog.Success},
			map[string]any{"level": "INFO", "tool": "shop_get", "outcome": "success"}},
		{"success ignores an envelope", calllog.Call{Tool: "shop_get", Outcome: calllog.Success, Envelope: notFound},
			map[string]any{"level": "INFO", "tool": "shop_get", "outcome": "success"}},
		{"input required is not a failure", calllog.Call{Tool: "shop_get", Outcome: calllog.InputRequired, Envelope: notFound},
			map[string]any{"level": "INFO", "tool": "shop_get", "outcome": "input_required"}},
		{"tool error with an envelope", calllog.Call{Tool: "shop_get", Outcome: calllog.ToolError, Envelope: notFound},
			map[string]any{"level": "WARN", "tool": "shop_get", "outcome": "tool_error", "error_type": "not_found"}},
		{"internal error", calllog.Call{Tool: "shop_get", Outcome: calllog.ToolError, Envelope: internal},
			map[string]any{"level": "ERROR", "tool": "shop_get", "outcome": "tool_error", "error_type": "internal_error", "incident_id": "inc-1"}},
		{"tool error without an envelope", calllog.Call{Tool: "shop_get", Outcome: calllog.ToolError},
			map[string]any{"level": "WARN", "tool": "shop_get", "outcome": "tool_error"}},
		{"protocol error", calllog.Call{Tool: "shop_get", Err: errors.New("unknown tool")},
			map[string]any{"level": "ERROR", "tool": "shop_get", "outcome": "protocol_error", "error": "unknown tool"}},
		{"protocol error ignores an envelope", calllog.Call{Tool: "shop_get", Envelope: internal},
			map[string]any{"level": "ERROR", "tool": "shop_get", "outcome": "protocol_error"}},
		{"no result", calllog.Call{Tool: "shop_get", Outcome: calllog.ProtocolError},
			map[string]any{"level": "ERROR", "tool": "shop_get", "outcome": "protocol_error"}},
		{"an outcome no front sends", calllog.Call{Tool: "shop_get", Outcome: 7},
			map[string]any{"level": "ERROR", "tool": "shop_get", "outcome": "protocol_error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record(t, tc.call)
			assert.Equal(t, calllog.Message, rec[slog.MessageKey])
			assert.Equal(t, tc.want, attrs(rec))
		})
	}
}

func TestRecordCarriesTheDuration(t *testing.T) {
	rec := record(t, calllog.Call{Tool: "shop_get", Outcome: calllog.Success, Duration: 1500 * time.Millisecond})
	// slog.JSONHandler writes a duration as its nanoseconds.
	assert.EqualValues(t, 1.5e9, rec[calllog.KeyDuration])
}

func TestRecordKeysAreTheFrontsKeys(t *testing.T) {
	rec := record(t, calllog.Call{Tool: "t", Outcome: calllog.ToolError, Err: errors.New("e"), Args: map[string]any{},
		Envelope: &envelope.Envelope{ErrorType: envelope.InternalError, IncidentID: "i"}}, calllog.WithArguments())
	for _, k := range []string{calllog.KeyTool, calllog.KeyDuration, calllog.KeyOutcome, calllog.KeyErrorType,
		calllog.KeyIncidentID, calllog.KeyError, calllog.KeyArguments} {
		assert.Contains(t, rec, k)
	}
	assert.Equal(t, "mcpguard: tool call", calllog.Message)
}

func TestWithLevels(t *testing.T) {
	opt := calllog.WithLevels(slog.LevelDebug, slog.LevelInfo)
	assert.Equal(t, "DEBUG", record(t, calllog.Call{Outcome: calllog.Success}, opt)["level"])
	assert.Equal(t, "INFO", record(t, calllog.Call{Outcome: calllog.ToolError}, opt)["level"])
	internal := &envelope.Envelope{ErrorType: envelope.InternalError}
	assert.Equal(t, "ERROR", record(t, calllog.Call{Outcome: calllog.ToolError, Envelope: internal}, opt)["level"],
		"an internal error is always an Error")
	assert.Equal(t, "ERROR", record(t, calllog.Call{Outcome: calllog.ProtocolError}, opt)["level"],
		"a protocol error is always an Error")
}

func TestOptionsApplyInOrderAndSkipNil(t *testing.T) {
	rec := record(t, calllog.Call{Outcome: calllog.Success},
		calllog.WithLevels(slog.LevelDebug, slog.LevelDebug), nil, calllog.WithLevels(slog.LevelWarn, slog.LevelError))
	assert.Equal(t, "WARN", rec["level"])
}

func TestArgumentsAreLeftOutByDefault(t *testing.T) {
	rec := record(t, calllog.Call{Outcome: calllog.Success, RawArgs: []byte(`{"q":"shoes"}`)})
	assert.NotContains(t, rec, calllog.KeyArguments)
}

func TestWithArgumentsMasksSecrets(t *testing.T) {
	for _, tc := range []struct {
		name string
		call calllog.Call
		want []string // substrings of the arguments attribute
	}{
		{"raw object", calllog.Call{RawArgs: []byte(`{"q":"shoes","db_password":"hunter2","token":{"v":"hunter2"}}`)},
			[]string{`"q":"shoes"`, `"db_password":`}},
		{"raw wins over decoded", calllog.Call{RawArgs: []byte(`{"q":"raw"}`), Args: map[string]any{"q": "decoded"}},
			[]string{`"q":"raw"`}},
		{"decoded only", calllog.Call{Args: map[string]any{"apiKey": "hunter2", "q": "shoes"}},
			[]string{`"q":"shoes"`, `"apiKey":`}},
		{"not an object", calllog.Call{RawArgs: []byte(`"password=hunter2"`)}, []string{"password="}},
		{"none", calllog.Call{}, []string{"{}"}},
		{"empty raw and no decoded", calllog.Call{RawArgs: []byte{}}, []string{"{}"}},
		{"unencodable", calllog.Call{Args: map[string]any{"f": func() {}}}, []string{"<unencodable>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Outcome = calllog.Success
			got, ok := record(t, tc.call, calllog.WithArguments())[calllog.KeyArguments].(string)
			require.True(t, ok, "arguments is a string")
			assert.NotContains(t, got, "hunter2")
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
		})
	}
}

func TestDisabledLevelWritesNothing(t *testing.T) {
	h := &countingHandler{level: slog.LevelError}
	lg := calllog.New(slog.New(h), calllog.WithArguments())
	lg.Record(context.Background(), calllog.Call{Outcome: calllog.Success})
	lg.Record(context.Background(), calllog.Call{Outcome: calllog.ToolError})
	assert.Zero(t, h.handled)
	lg.Record(context.Background(), calllog.Call{Outcome: calllog.ProtocolError})
	assert.Equal(t, 1, h.handled)
}

func TestPanickingLogHandlerCannotFailTheCall(t *testing.T) {
	lg := calllog.New(slog.New(&countingHandler{panics: true}), calllog.WithArguments())
	assert.NotPanics(t, func() {
		lg.Record(context.Background(), calllog.Call{Outcome: calllog.ToolError, RawArgs: []byte(`{}`)})
	})
}

func TestPanickingErrorMethodIsRecorded(t *testing.T) {
	rec := record(t, calllog.Call{Err: panickingError{}})
	assert.Contains(t, rec[calllog.KeyError], "Error method panicked")
}

func TestLongErrorIsBounded(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	got, _ := record(t, calllog.Call{Err: errors.New(long)})[calllog.KeyError].(string)
	assert.Less(t, len(got), len(long)/8)
	assert.True(t, strings.HasSuffix(got, "…(truncated)"), "the cut is marked")
}

func TestNewPanicsOnNilLogger(t *testing.T) {
	assert.PanicsWithValue(t, "calllog: New needs a logger", func() { calllog.New(nil) })
}

func TestOutcomeString(t *testing.T) {
	assert.Equal(t, "success", calllog.Success.String())
	assert.Equal(t, "tool_error", calllog.ToolError.String())
	assert.Equal(t, "protocol_error", calllog.ProtocolError.String())
	assert.Equal(t, "protocol_error", calllog.Outcome(9).String())
}

func TestDisabledRecordAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what escapes")
	}
	lg := calllog.New(slog.New(slog.DiscardHandler), calllog.WithArguments())
	ctx := context.Background()
	env := &envelope.Envelope{ErrorType: envelope.NotFound}
	c := calllog.Call{Tool: "shop_get", Outcome: calllog.ToolError, Envelope: env, RawArgs: []byte(`{"q":1}`), Args: map[string]any{}}
	assert.Zero(t, testing.AllocsPerRun(1000, func() { lg.Record(ctx, c) }))
}

type countingHandler struct {
	level   slog.Level
	panics  bool
	handled int
}

func (h *countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }
func (h *countingHandler) Handle(context.Context, slog.Record) error {
	if h.panics {
		panic("log handler down")
	}
	h.handled++
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

type panickingError struct{}

func (panickingError) Error() string { panic("boom") }

// A Note is one per call: a layer inside reuses the one a layer outside
// made, holds add up, the last admission stands, and a nil Note (no layer
// records the call) notes nothing.
func TestNoteIsOnePerCall(t *testing.T) {
	ctx, outer := calllog.Noting(context.Background())
	ctx2, inner := calllog.Noting(ctx)
	if inner != outer || ctx2 != ctx {
		t.Fatal("a second Noting made a second Note")
	}
	if calllog.NoteFrom(ctx) != outer {
		t.Fatal("NoteFrom does not find the Note")
	}
	outer.Admit("held", time.Second)
	inner.Admit("refused", 2*time.Second)
	if a, held := outer.Admission(); a != "refused" || held != 3*time.Second {
		t.Errorf("Admission = %q, %v", a, held)
	}
	var none *calllog.Note
	none.Admit("held", time.Second)
	if a, held := none.Admission(); a != "" || held != 0 {
		t.Errorf("a nil Note noted %q, %v", a, held)
	}
	if calllog.NoteFrom(context.Background()) != nil {
		t.Error("a Note without Noting")
	}
}
