package proxy

import (
	"context"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkColdPath measures what the stdio proxy does to a tool call
// (in-µs: from its line to its write to the server) and to the answer
// (out-µs: from the server's line to the write to the client), at the
// median, with the caches and the TLB emptied before each message: as it
// runs end to end, where the client's and the server's processes run
// between two messages on the same cores. Run warm (BenchmarkMessagePath)
// the same steps take a tenth of it; what costs cold is each line of code
// and data a message touches (docs/proxy.md, "Latency end to end").
func BenchmarkColdPath(b *testing.B) {
	evict := make([]byte, 64<<20)
	s, c := routing(b, io.Discard)
	ctx := context.Background()
	var in, out []time.Duration
	for i := 0; b.Loop(); i++ {
		req := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"latency stdio proxy ` + strconv.Itoa(i) + `"},"_meta":{"progressToken":7}}}`)
		for j := 0; j < len(evict); j += 64 {
			evict[j]++
		}
		t0 := time.Now()
		s.fromClient(ctx, req, false)
		in = append(in, time.Since(t0))
		ans := []byte(`{"result":{"content":[{"type":"text","text":"Echo: latency stdio proxy ` + strconv.Itoa(i) + `"}]},"jsonrpc":"2.0","id":"` +
			s.g.ids.Prefix + strconv.FormatUint(s.g.ids.N.Load(), 10) + `"}`)
		for j := 0; j < len(evict); j += 64 {
			evict[j]++
		}
		t1 := time.Now()
		s.fromChild(ctx, c, ans, false)
		out = append(out, time.Since(t1))
	}
	if len(s.flight) != 0 {
		b.Fatalf("%d requests still in flight: the answers were not matched", len(s.flight))
	}
	b.ReportMetric(median(in), "in-µs")
	b.ReportMetric(median(out), "out-µs")
}

// routing is a stdio proxy without pipes or a child process, whose
// messages to the client go to out and to the server nowhere, in front of
// a server that listed echo: what BenchmarkColdPath and
// TestToolCallAllocatesNothing run a call and its answer through.
func routing(tb testing.TB, out io.Writer, opts ...Option) (*Stdio, *child) {
	s := NewStdio([]string{"x"}, io.Discard, opts...)
	s.out = &writer{w: out}
	s.exp = newExpiries(func(uint64) {}, s.inFlight)
	tb.Cleanup(s.exp.stop)
	c := &child{w: writer{w: io.Discard}}
	s.child = c
	s.setReady(true)
	s.g.learn(&s.g.tools, 0, []byte(`{"tools":[`+echoTool+`]}`))
	return s, c
}

// echoTool is the tool routing's server lists.
const echoTool = `{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`

// TestToolCallAllocatesNothing: a tool call and its answer, through the
// stdio proxy's routing, allocate nothing once a call has left its request
// spare (newRequest), and the client still gets its answer under its id.
func TestToolCallAllocatesNothing(t *testing.T) { toolCallAllocatesNothing(t) }

// toolCallAllocatesNothing is TestToolCallAllocatesNothing through a
// proxy configured by opts.
func toolCallAllocatesNothing(t *testing.T, opts ...Option) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var got lastLine
	s, c := routing(t, &got, opts...)
	ctx := context.Background()
	req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	var ans []byte
	call := func() {
		s.fromClient(ctx, req, false)
		ans = append(strconv.AppendUint(append(append(ans[:0], `{"jsonrpc":"2.0","id":"`...), s.g.ids.Prefix...), s.g.ids.N.Load(), 10),
			`","result":{"content":[{"type":"text","text":"Echo: hello"}]}}`...)
		s.fromChild(ctx, c, ans, false)
	}
	call()
	if n := testing.AllocsPerRun(200, call); n != 0 {
		t.Errorf("a call and its answer allocate %v times", n)
	}
	if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}` + "\n"; string(got.b) != want {
		t.Errorf("the client got %q, want %q", got.b, want)
	}
	if len(s.flight) != 0 {
		t.Errorf("%d requests still in flight", len(s.flight))
	}
}

// lastLine keeps the last message written, in a buffer it reuses.
type lastLine struct{ b []byte }

func (l *lastLine) Write(p []byte) (int, error) {
	l.b = append(l.b[:0], p...)
	return len(p), nil
}

func median(d []time.Duration) float64 {
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1000
}
