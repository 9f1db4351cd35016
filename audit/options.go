package audit

import (
	"fmt"
	"regexp"
	"strings"
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
	language   string
	deadline   time.Duration
	limits     Limits
	tokens     int
	baseline   *Baseline
	ignore     *Ignore
}

// Limits bound what a hostile or broken server can make the audit read and
// report. The zero value of a field means its default.
type Limits struct {
	// ListBytes bounds the size of all tools/list pages' definitions
	// together, as sent (from a [RawLister]) or as encoded; 16 MiB unless
	// set.
	ListBytes int
	// Pages bounds the number of tools/list pages; 100 unless set.
	Pages int
	// Tools bounds the number of tools listed; 10,000 unless set.
	Tools int
	// FindingsPerRule bounds the findings a report lists per rule; 1,000
	// unless set. The rest are counted in [Report.Omitted]; scores still
	// count every item.
	FindingsPerRule int
}

// DefaultLimits returns the limits an audit applies unless told otherwise.
func DefaultLimits() Limits {
	return Limits{ListBytes: 16 << 20, Pages: 100, Tools: 10_000, FindingsPerRule: 1_000}
}

// DefaultDeadline bounds a whole audit (listing, analysis and probe) unless
// [WithDeadline] says otherwise.
const DefaultDeadline = 5 * time.Minute

func newOptions(opts []Option) options {
	o := options{
		failOn:   Error,
		minDesc:  40,
		maxDesc:  1024,
		timeout:  10 * time.Second,
		deadline: DefaultDeadline,
		limits:   DefaultLimits(),
		tokens:   DefaultTokenBudget,
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

// WithServerLanguage says which language the server is written in
// ("go", "node", "python", ...), so that rule D's fixes fit it: a Go
// server wraps its tools in mcpguard's middleware, a server in any other
// language runs behind mcpguard-proxy. Unless set, the fixes name both;
// [Server] audits an mcp-go server, so there they fit Go. mcpguard-audit
// sets it from the command it starts (node, npx, python, uvx, ...).
func WithServerLanguage(lang string) Option {
	return func(o *options) { o.language = strings.ToLower(strings.TrimSpace(lang)) }
}

// WithDeadline bounds the whole audit: listing, static analysis and the
// probe together; [DefaultDeadline] unless set. A probe cut short reports
// the tools it did not reach as a [CheckDeadline] finding; a listing cut
// short is an error. It panics on a duration that is not positive.
func WithDeadline(d time.Duration) Option {
	if d <= 0 {
		panic(fmt.Sprintf("audit: WithDeadline(%v): want a positive duration", d))
	}
	return func(o *options) { o.deadline = d }
}

// WithLimits bounds what the audit reads and reports; zero fields keep
// their [DefaultLimits]. It panics on a negative limit.
func WithLimits(l Limits) Option {
	if l.ListBytes < 0 || l.Pages < 0 || l.Tools < 0 || l.FindingsPerRule < 0 {
		panic(fmt.Sprintf("audit: WithLimits(%+v): limits cannot be negative", l))
	}
	return func(o *options) {
		d := DefaultLimits()
		for _, f := range []struct {
			dst    *int
			v, def int
		}{
			{&o.limits.ListBytes, l.ListBytes, d.ListBytes},
			{&o.limits.Pages, l.Pages, d.Pages},
			{&o.limits.Tools, l.Tools, d.Tools},
			{&o.limits.FindingsPerRule, l.FindingsPerRule, d.FindingsPerRule},
		} {
			*f.dst = f.def
			if f.v > 0 {
				*f.dst = f.v
			}
		}
	}
}

// DefaultTokenBudget is the estimated size, in tokens, above which a
// tools/list is reported as too large ([CheckListTokens]).
const DefaultTokenBudget = 15_000

// WithTokenBudget sets the estimated size, in tokens, above which the
// tool list is reported as too large; [DefaultTokenBudget] unless set. It
// panics unless n is positive.
func WithTokenBudget(n int) Option {
	if n <= 0 {
		panic(fmt.Sprintf("audit: WithTokenBudget(%d): want a positive number of tokens", n))
	}
	return func(o *options) { o.tokens = n }
}

// WithBaseline checks the listed tools against a baseline written earlier
// ([Report.Baseline], --baseline): tools added, removed or changed since
// are reported under [RuleBaseline], each change with a readable diff.
func WithBaseline(b *Baseline) Option {
	return func(o *options) { o.baseline = b }
}

// WithIgnore drops the findings an [Ignore] list accepts from the report's
// findings (and so from [Report.Failed]) into [Report.Ignored], each with
// its reason. Scores are not changed: they say what the server is.
func WithIgnore(i *Ignore) Option {
	return func(o *options) { o.ignore = i }
}
