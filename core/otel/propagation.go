package otel

import "context"

// metaCarrier reads trace context from params._meta, where the
// conventions put traceparent, tracestate and baggage for every transport.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(string, string) {}

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// extract makes a trace context sent in _meta the parent of the call's
// span. A request without one keeps ctx, and any span already in it (such
// as an HTTP server span), as the parent.
func (in *Instrument) extract(ctx context.Context, meta map[string]any) context.Context {
	if len(meta) == 0 {
		return ctx
	}
	return in.o.propagator.Extract(ctx, metaCarrier(meta))
}
