package oteltest_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpguard/mcpguard/core/calllog"
	"github.com/mcpguard/mcpguard/core/envelope"
	coreotel "github.com/mcpguard/mcpguard/core/otel"
	"github.com/mcpguard/mcpguard/core/otel/oteltest"
)

// expect is what the fronts' tests know of the call they record.
var expect = oteltest.Expect{Tool: "shop_tool", RequestID: "7", ProtocolVersion: "2025-06-18", SessionID: "s-1", Transport: "pipe"}

// rendered is the envelope a client receives for case c.
func rendered(c oteltest.Case) *envelope.Envelope {
	if c.Code == "" {
		return nil
	}
	err := c.Err
	if err == nil {
		err = envelope.New(c.Code, "refused")
	}
	r := envelope.NewRenderer(envelope.WithLogger(slog.New(slog.DiscardHandler)))
	return r.Error(context.Background(), envelope.Call{Tool: expect.Tool}, err)
}

// record records case c as a front does: each of its calls through the
// neutral instrument, the spans reset before each, the last call failing
// with env when it fails. touch, if set, acts on the last call's span.
func record(c oteltest.Case, env *envelope.Envelope, touch func(ctx context.Context)) *oteltest.Recorder {
	return recordOver(coreotel.TransportStdio, c, env, touch)
}

// recordOver is record over transport.
func recordOver(transport coreotel.Transport, c oteltest.Case, env *envelope.Envelope, touch func(ctx context.Context)) *oteltest.Recorder {
	rec := oteltest.NewRecorder()
	opts := []coreotel.Option{coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(rec.MeterProvider)}
	if c.Results {
		opts = append(opts, coreotel.WithResults())
	}
	in := coreotel.New("example.com/front", opts...)
	for i := range c.Calls() {
		rec.Spans.Reset()
		call := coreotel.Call{Method: coreotel.MethodCallTool, Tool: expect.Tool, RequestID: expect.RequestID,
			ProtocolVersion: expect.ProtocolVersion, SessionID: expect.SessionID, Transport: transport}
		ctx, span := in.Start(context.Background(), &call)
		out := coreotel.Outcome{}
		if last := i == c.Calls()-1; last {
			if env != nil {
				out = coreotel.ToolError(string(env.Marshal()))
			} else if c.Results {
				span.Result(c.Result) // a success's text, as a front with WithResults records it
			}
			if touch != nil {
				touch(ctx)
			}
		}
		span.End(ctx, out)
	}
	return rec
}

// Every case of the table, recorded as the neutral instrument records it
// (what each front wraps), passes CheckCall.
func TestCheckCallAcceptsWhatTheInstrumentRecords(t *testing.T) {
	for _, c := range oteltest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			env := rendered(c)
			oteltest.CheckCall(t, record(c, env, nil), c, env, expect)
		})
	}
}

// The transport a front knows is expected on the span and the point, and
// none when it cannot tell.
func TestCheckCallOfEachTransport(t *testing.T) {
	success := oteltest.Cases()[0]
	for transport, name := range map[coreotel.Transport]string{coreotel.TransportHTTP: "tcp", coreotel.TransportUnknown: ""} {
		want := expect
		want.Transport = name
		oteltest.CheckCall(t, recordOver(transport, success, nil, nil), success, nil, want)
		if p := reports(func(tb testing.TB) { oteltest.CheckCall(tb, record(success, nil, nil), success, nil, want) }); len(p.msgs) == 0 {
			t.Errorf("a call over stdio passed as one of transport %q", name)
		}
	}
}

func TestCases(t *testing.T) {
	codes := map[envelope.Code]bool{}
	for _, c := range oteltest.Cases() {
		if c.Kind == oteltest.Fail && (c.Err == nil || !strings.Contains(c.Err.Error(), oteltest.Secret)) {
			t.Errorf("%s: a failure whose error does not hold the secret: %v", c.Name, c.Err)
		}
		if want := map[bool]int{true: 2, false: 1}[c.Kind == oteltest.RateLimited]; c.Calls() != want {
			t.Errorf("%s: %d calls, want %d", c.Name, c.Calls(), want)
		}
		codes[c.Code] = true
	}
	for _, code := range envelope.Codes() {
		if !codes[code] {
			t.Errorf("no case of %s", code)
		}
	}
}

func TestKeysAndValues(t *testing.T) {
	kvs := []attribute.KeyValue{attribute.String("b", "x"), attribute.Int("a", 7)}
	if got := strings.Join(oteltest.Keys(kvs), ","); got != "a,b" {
		t.Errorf("Keys = %s, want a,b", got)
	}
	if got := oteltest.Values(kvs); len(got) != 2 || got["a"] != "7" || got["b"] != "x" {
		t.Errorf("Values = %v", got)
	}
}

// probe is a testing.TB that keeps what a check reports; Fatal and
// Fatalf end the check's goroutine, as testing's do.
type probe struct {
	testing.TB
	msgs  []string
	fatal bool
}

func (p *probe) Helper()                   {}
func (p *probe) Errorf(f string, a ...any) { p.msgs = append(p.msgs, fmt.Sprintf(f, a...)) }
func (p *probe) Fatalf(f string, a ...any) { p.Errorf(f, a...); p.fatal = true; runtime.Goexit() }
func (p *probe) Fatal(a ...any)            { p.Errorf("%s", fmt.Sprint(a...)); p.fatal = true; runtime.Goexit() }

// reports runs check against a probe and returns what it reported.
func reports(check func(testing.TB)) *probe {
	p := &probe{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(p)
	}()
	<-done
	return p
}

// CheckCall fails on each way a front could record a call wrongly; a
// harness that cannot fail proves nothing.
func TestCheckCallReportsWhatIsWrong(t *testing.T) {
	cases := oteltest.Cases()
	success, notFound := cases[0], cases[3]
	if success.Code != "" || notFound.Code != envelope.NotFound {
		t.Fatalf("the table changed: %v, %v", success, notFound)
	}
	other := expect
	other.Tool = "other_tool"
	twoSpans := func(ctx context.Context) {
		_, s := trace.SpanFromContext(ctx).TracerProvider().Tracer("x").Start(context.Background(), "extra")
		s.End()
	}
	leak := func(ctx context.Context) {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("db", oteltest.Secret))
	}
	event := func(ctx context.Context) { trace.SpanFromContext(ctx).AddEvent("panic", trace.WithStackTrace(true)) }
	for _, c := range []struct {
		name  string
		run   func(testing.TB)
		fatal bool
		want  string
	}{
		{"another tool's span", func(tb testing.TB) { oteltest.CheckCall(tb, record(success, nil, nil), success, nil, other) }, false,
			"span name"},
		{"a secret in an attribute", func(tb testing.TB) { oteltest.CheckCall(tb, record(success, nil, leak), success, nil, expect) }, false,
			oteltest.Secret},
		{"an event", func(tb testing.TB) { oteltest.CheckCall(tb, record(success, nil, event), success, nil, expect) }, false,
			"span has events"},
		{"two spans", func(tb testing.TB) { oteltest.CheckCall(tb, record(success, nil, twoSpans), success, nil, expect) }, true,
			"2 spans recorded"},
		{"the client got another code", func(tb testing.TB) {
			oteltest.CheckCall(tb, record(notFound, rendered(notFound), nil), notFound, rendered(cases[2]), expect)
		}, true, "want an envelope with not_found"},
		{"a failure recorded as a success", func(tb testing.TB) {
			oteltest.CheckCall(tb, record(notFound, nil, nil), notFound, rendered(notFound), expect)
		}, true, "span status"},
		{"no point of the failure", func(tb testing.TB) {
			oteltest.CheckCall(tb, record(success, nil, nil), notFound, rendered(notFound), expect)
		}, true, "no mcp.server.operation.duration point of tools/call with failed=true"},
	} {
		p := reports(c.run)
		if len(p.msgs) == 0 || p.fatal != c.fatal || !strings.Contains(strings.Join(p.msgs, "\n"), c.want) {
			t.Errorf("%s: reported %q (fatal %v), want a report of %q (fatal %v)", c.name, p.msgs, p.fatal, c.want, c.fatal)
		}
	}
}

// Points reports a metric of the conventions' name in another unit, or
// of another kind.
func TestPointsReportsAMetricOfAnotherShape(t *testing.T) {
	rec := oteltest.NewRecorder()
	h, _ := rec.MeterProvider.Meter("a").Float64Histogram(oteltest.Metric, metric.WithUnit("ms"))
	h.Record(context.Background(), 5)
	p := reports(func(tb testing.TB) { rec.Points(tb) })
	if p.fatal || len(p.msgs) != 1 || !strings.Contains(p.msgs[0], `has unit "ms", want s`) {
		t.Errorf("another unit: %q", p.msgs)
	}

	rec = oteltest.NewRecorder()
	c, _ := rec.MeterProvider.Meter("b").Int64Counter(oteltest.Metric, metric.WithUnit("s"))
	c.Add(context.Background(), 1)
	p = reports(func(tb testing.TB) { rec.Points(tb) })
	if !p.fatal || !strings.Contains(strings.Join(p.msgs, ""), "want a float64 histogram") {
		t.Errorf("a counter: %q", p.msgs)
	}
}

// recordBare records c as a front's telemetry layer with no chain inside
// it does: the JSON-RPC error its SDK answers with code, or the envelope
// a handler wrote itself.
func recordBare(c oteltest.Case, code int) *oteltest.Recorder {
	rec := oteltest.NewRecorder()
	in := coreotel.New("example.com/front", coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(rec.MeterProvider))
	call := coreotel.Call{Method: coreotel.MethodCallTool, Tool: expect.Tool, RequestID: expect.RequestID,
		ProtocolVersion: expect.ProtocolVersion, SessionID: expect.SessionID, Transport: coreotel.TransportStdio}
	ctx, span := in.Start(context.Background(), &call)
	if c.Code != "" {
		span.End(ctx, coreotel.ToolError(string(rendered(c).Marshal())))
	} else {
		span.End(ctx, coreotel.RPCError(code))
	}
	return rec
}

// Every bare case, recorded as a bare front records it, passes
// CheckBare; a JSON-RPC error recorded under another code, or as a
// success, does not.
func TestCheckBareAcceptsWhatABareFrontRecords(t *testing.T) {
	for _, c := range oteltest.BareCases() {
		t.Run(c.Name, func(t *testing.T) {
			oteltest.CheckBare(t, recordBare(c, -32603), c, -32603)
			if c.Code == "" {
				oteltest.CheckBare(t, recordBare(c, -32603), c, 0) // go-sdk's code 0 for a plain error is -32603
				if p := reports(func(tb testing.TB) { oteltest.CheckBare(tb, recordBare(c, -32602), c, -32603) }); len(p.msgs) == 0 {
					t.Error("CheckBare accepted another JSON-RPC code")
				}
			}
		})
	}
}

// recordHeld records two tools/call as a front does over a rate limit
// that holds the second: admit notes, on each call's calllog.Note, what
// the limit made of call i; fail makes call i end with a tool error.
func recordHeld(admit func(i int, note *calllog.Note), fail func(i int) bool) *oteltest.Recorder {
	rec := oteltest.NewRecorder()
	in := coreotel.New("example.com/front", coreotel.WithTracerProvider(rec.TracerProvider), coreotel.WithMeterProvider(rec.MeterProvider))
	for i := range 2 {
		call := coreotel.Call{Method: coreotel.MethodCallTool, Tool: expect.Tool, Transport: coreotel.TransportStdio}
		ctx, span := in.Start(context.Background(), &call)
		admit(i, calllog.NoteFrom(ctx))
		out := coreotel.Outcome{}
		if fail(i) {
			out = coreotel.ToolError(string(rendered(oteltest.Cases()[3]).Marshal()))
		}
		span.End(ctx, out)
	}
	return rec
}

// CheckHeld accepts the second call held and then run, and reports each
// way a front could record the hold wrongly.
func TestCheckHeldAcceptsAHoldAndReportsWhatIsWrong(t *testing.T) {
	never := func(int) bool { return false }
	heldSecond := func(d time.Duration) func(int, *calllog.Note) {
		return func(i int, n *calllog.Note) {
			if i == 1 {
				n.Admit("held", d)
			}
		}
	}
	oteltest.CheckHeld(t, recordHeld(heldSecond(30*time.Millisecond), never))

	for _, c := range []struct {
		name  string
		rec   func() *oteltest.Recorder
		fatal bool
		want  string
	}{
		{"no hold noted", func() *oteltest.Recorder { return recordHeld(func(int, *calllog.Note) {}, never) }, false,
			"the held call's mcpguard.limit.admission"},
		{"held no millisecond", func() *oteltest.Recorder { return recordHeld(heldSecond(0), never) }, false,
			"want the milliseconds it waited"},
		{"the first call held too", func() *oteltest.Recorder {
			return recordHeld(func(_ int, n *calllog.Note) { n.Admit("held", 30*time.Millisecond) }, never)
		}, false, "the first call's mcpguard.limit.admission"},
		{"the held call failed", func() *oteltest.Recorder {
			return recordHeld(heldSecond(30*time.Millisecond), func(i int) bool { return i == 1 })
		}, false, "the held call's error.type"},
		{"refused after the hold", func() *oteltest.Recorder {
			return recordHeld(func(i int, n *calllog.Note) {
				if i == 1 {
					n.Admit("refused", 30*time.Millisecond)
				}
			}, never)
		}, false, "0 points of held calls"},
		{"one call", func() *oteltest.Recorder {
			rec := recordHeld(heldSecond(30*time.Millisecond), never)
			rec.Spans.Reset()
			return rec
		}, true, "0 tools/call spans recorded, want 2"},
	} {
		rec := c.rec()
		p := reports(func(tb testing.TB) { oteltest.CheckHeld(tb, rec) })
		if len(p.msgs) == 0 || p.fatal != c.fatal || !strings.Contains(strings.Join(p.msgs, "\n"), c.want) {
			t.Errorf("%s: reported %q (fatal %v), want a report of %q (fatal %v)", c.name, p.msgs, p.fatal, c.want, c.fatal)
		}
	}
}

// Points reports a reader that can collect nothing.
func TestPointsReportsAReaderThatFails(t *testing.T) {
	rec := oteltest.NewRecorder()
	if err := rec.MeterProvider.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := reports(func(tb testing.TB) { rec.Points(tb) }); !p.fatal || len(p.msgs) != 1 {
		t.Errorf("a reader shut down: reported %q (fatal %v)", p.msgs, p.fatal)
	}
}
