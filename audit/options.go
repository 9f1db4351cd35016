package audit

import (
	"fmt"
	"regexp"
	"time"
)

// Option configures an audit.
type Option func(*options)

type options struct {
	prefix     string
	prefixSet  bool
	probe      bool
	skip       map[string]bool
	failOn     Severity
	minDesc    int
	maxDesc    int
	timeout    time.Duration
	serverName string
}

func newOptions(opts []Option) options {
	o := options{
		failOn:  Error,
		minDesc: 40,
		maxDesc: 1024,
		timeout: 10 * time.Second,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

var prefixShape = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// WithPrefix sets the namespace prefix every tool name must start with,
// separator included, e.g. "marketnow_". Without it the prefix is detected
// from the tool names. It panics on a prefix that is not a valid start of an
// MCP tool name.
func WithPrefix(prefix string) Option {
	if !prefixShape.MatchString(prefix) {
		panic(fmt.Sprintf("audit: WithPrefix(%q): a prefix is 1-64 of A-Z a-z 0-9 _ . - and starts with a letter or digit", prefix))
	}
	return func(o *options) { o.prefix, o.prefixSet = prefix, true }
}

// WithProbe turns on rule D: every probeable tool is called with arguments
// its own input schema rejects, and the answers are checked. Each call is
// validated against the schema before it is sent and dropped if the schema
// would accept it, so the probe never sends a call the tool declares valid.
// It has no effect on [Tools], which has no server to call.
func WithProbe() Option {
	return func(o *options) { o.probe = true }
}

// WithSkip excludes tools from the probe: they are never called. Their
// names, descriptions and schemas are still audited.
func WithSkip(names ...string) Option {
	return func(o *options) {
		if o.skip == nil {
			o.skip = make(map[string]bool, len(names))
		}
		for _, n := range names {
			o.skip[n] = true
		}
	}
}

// WithFailOn sets the lowest severity that fails [Require] and
// [Report.Failed]'s default; [Error] unless set. It panics on an invalid
// severity.
func WithFailOn(s Severity) Option {
	if s < Info || s > Error {
		panic(fmt.Sprintf("audit: WithFailOn(%d): not a severity", int(s)))
	}
	return func(o *options) { o.failOn = s }
}

// WithDescriptionLength sets the bounds, in characters, outside which a
// description is trivially short or unbounded (rule B). The defaults are 40
// and 1024. It panics unless 0 <= min < max.
func WithDescriptionLength(min, max int) Option {
	if min < 0 || max <= min {
		panic(fmt.Sprintf("audit: WithDescriptionLength(%d, %d): want 0 <= min < max", min, max))
	}
	return func(o *options) { o.minDesc, o.maxDesc = min, max }
}

// WithTimeout bounds each probe call; 10 seconds unless set. It panics on a
// duration that is not positive.
func WithTimeout(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("audit: WithTimeout(%v): want a positive duration", d))
	}
	return func(o *options) { o.timeout = d }
}

// WithServerName records a name for the audited server in the report.
func WithServerName(name string) Option {
	return func(o *options) { o.serverName = name }
}
