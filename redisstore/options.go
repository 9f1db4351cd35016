package redisstore

import "fmt"

// Option configures [New] and [Open].
type Option func(*options)

type options struct{ prefix string }

func evaluate(opts []Option) *options {
	o := &options{prefix: DefaultPrefix}
	for _, opt := range opts {
		if opt != nil {
			opt(o)
		}
	}
	return o
}

// WithPrefix starts every key the store writes with prefix instead of
// [DefaultPrefix]: give each server sharing one Redis its own, so that
// their buckets stay apart. It panics on an empty prefix, which would mix
// the store's keys with an application's.
func WithPrefix(prefix string) Option {
	if prefix == "" {
		panic(fmt.Sprintf("redisstore: WithPrefix(%q): need a prefix", prefix))
	}
	return func(o *options) { o.prefix = prefix }
}
