package proxy

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"testing"

	"github.com/mcpguard/mcpguard/core/pin"
)

// echoPins are pins that approve routing's echo.
func echoPins(tb testing.TB) *pin.Pins {
	lock, err := pin.NewLock("routing", []json.RawMessage{json.RawMessage(echoTool)})
	if err != nil {
		tb.Fatal(err)
	}
	return pin.New(lock, slog.New(slog.DiscardHandler))
}

// With pins, a call of an approved tool and its answer still allocate
// nothing: the verdict is read in the table entry the call looks up
// anyway.
func TestPinnedToolCallAllocatesNothing(t *testing.T) {
	toolCallAllocatesNothing(t, WithPins(echoPins(t)))
}

// BenchmarkPinnedCall runs routing's call of echo and its answer through
// the stdio proxy without pins and with pins that approve echo, side by
// side in one run.
func BenchmarkPinnedCall(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{{"unpinned", nil}, {"pinned", []Option{WithPins(echoPins(b))}}} {
		b.Run(tc.name, func(b *testing.B) {
			s, c := routing(b, io.Discard, tc.opts...)
			ctx := context.Background()
			req := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
			var ans []byte
			b.ReportAllocs()
			for b.Loop() {
				s.fromClient(ctx, req, false)
				ans = append(strconv.AppendUint(append(append(ans[:0], `{"jsonrpc":"2.0","id":"`...), s.g.ids.prefix...), s.g.ids.n.Load(), 10),
					`","result":{"content":[{"type":"text","text":"Echo: hello"}]}}`...)
				s.fromChild(ctx, c, ans, false)
			}
		})
	}
}
