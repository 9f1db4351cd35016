package redact

import (
	"strings"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// Redactor applies an ordered list of rules. It is immutable and safe for
// concurrent use.
type Redactor struct {
	rules []Rule
	call  *call    // the call's arguments, for KeepSent rules; nil outside a call
	roots []string // cleaned roots whose paths KeepSent rules keep (KeepPathsUnder)
}

// New returns a Redactor that applies rules in order. New() with no rules
// redacts nothing; use [Default] or [DefaultRules] to start from the
// defaults.
func New(rules ...Rule) *Redactor {
	return &Redactor{rules: append([]Rule(nil), rules...)}
}

var defaultRedactor = New(defaultRules...)

// Default returns the Redactor with the default rules.
func Default() *Redactor { return defaultRedactor }

// With returns a new Redactor that applies r's rules and then extra.
func (r *Redactor) With(extra ...Rule) *Redactor {
	if r == nil {
		r = &Redactor{}
	}
	rules := make([]Rule, 0, len(r.rules)+len(extra))
	rules = append(append(rules, r.rules...), extra...)
	return &Redactor{rules: rules, call: r.call, roots: r.roots}
}

// Without returns a new Redactor without the rules named by names. A name
// is a rule's full name ("paths/unix") or a category ("paths" drops every
// "paths/…" rule). Unknown names drop nothing:
//
//	redact.Default().Without("paths") // a file tool whose errors name files
func (r *Redactor) Without(names ...string) *Redactor {
	if r == nil {
		return New()
	}
	rules := make([]Rule, 0, len(r.rules))
	for _, rule := range r.rules {
		if !named(rule.Name, names) {
			rules = append(rules, rule)
		}
	}
	return &Redactor{rules: rules, call: r.call, roots: r.roots}
}

func named(name string, names []string) bool {
	for _, n := range names {
		if name == n || strings.HasPrefix(name, n+"/") {
			return true
		}
	}
	return false
}

// ForSuccess returns the Redactor for successful results: r without the
// rules marked [Rule.KeepInSuccess]. A success is the tool's intended
// output: a file server's search answers with paths, its roots are file
// URLs, a linter's findings are source positions, and those stay;
// secrets, tokens, passwords in URLs and DSNs, private keys, the values
// of secret-named keys and stack traces are still removed. Every consumer
// that redacts successes (WithRedactSuccesses on both fronts,
// mcpguard-proxy --redact-successes) uses it. It returns r when no rule
// is so marked; build it once, not per call.
func (r *Redactor) ForSuccess() *Redactor {
	if r == nil {
		return nil
	}
	rules := make([]Rule, 0, len(r.rules))
	for _, rule := range r.rules {
		if !rule.KeepInSuccess {
			rules = append(rules, rule)
		}
	}
	if len(rules) == len(r.rules) {
		return r
	}
	return &Redactor{rules: rules, call: r.call, roots: r.roots}
}

// Rules returns a copy of the Redactor's rules.
func (r *Redactor) Rules() []Rule { return append([]Rule(nil), r.rules...) }

// String returns s with every rule applied. Text that no rule's triggers
// occur in is returned as is, without allocating.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	var buf [lowerBufSize]byte
	var scan textScan
	lower := lowerASCII(buf[:0], s)
	scan.reset(lower)
	for i := range r.rules {
		rule := &r.rules[i]
		if rule.sent {
			if out := r.call.redactSecrets(s, rule.Replacement); out != s {
				s = out
				lower = lowerASCII(buf[:0], s)
				scan.reset(lower)
			}
			continue
		}
		if !rule.mayMatch(&scan, lower, s) {
			continue
		}
		if out := r.apply(rule, s); out != s {
			s = out
			lower = lowerASCII(buf[:0], s)
			scan.reset(lower)
		}
	}
	return s
}

// apply runs one rule over s. MatchString first: it is cheaper than a
// replacement, which allocates even when nothing matches.
func (r *Redactor) apply(rule *Rule, s string) string {
	if rule.spans != nil {
		return replaceSpans(s, rule.spans)
	}
	if !rule.Pattern.MatchString(s) {
		return s
	}
	if rule.accept != nil || rule.KeepSent && (r.call != nil || r.roots != nil) {
		return r.replaceVetted(rule, s)
	}
	return rule.Pattern.ReplaceAllString(s, rule.Replacement)
}

// replaceSpans replaces the spans a code rule finds in s.
func replaceSpans(s string, spans func(string, []leak.SecretValue) []leak.SecretValue) string {
	var buf [8]leak.SecretValue
	vs := spans(s, buf[:0])
	if len(vs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, v := range vs {
		b.WriteString(s[last:v.Start])
		b.WriteString(v.Replacement)
		last = v.End
	}
	b.WriteString(s[last:])
	return b.String()
}

// replaceVetted replaces the matches of rule in s except those its accept
// check refuses and, in a call, those the call's arguments contain
// verbatim.
func (r *Redactor) replaceVetted(rule *Rule, s string) string {
	var b []byte
	changed := false
	last := 0
	g := rule.kept()
	for _, m := range rule.Pattern.FindAllStringSubmatchIndex(s, -1) {
		if rule.accept != nil && !rule.accept(s[m[0]:m[1]]) || rule.KeepSent && r.keeps(s, m, g) {
			continue
		}
		changed = true
		b = append(b, s[last:m[0]]...)
		b = rule.Pattern.ExpandString(b, rule.Replacement, s, m)
		last = m[1]
	}
	if !changed {
		return s
	}
	return string(append(b, s[last:]...))
}

// keeps reports whether a KeepSent rule's match m of s is left alone: the
// call sent it, or it lies under a root of KeepPathsUnder.
func (r *Redactor) keeps(s string, m []int, g int) bool {
	start, end := keptSpan(m, g)
	if r.call != nil && r.call.sent().KeepsAt(s, start, end) {
		return true
	}
	return r.roots != nil && r.underRoot(s[leak.DriveStart(s, start):end])
}

// keptSpan returns where the part of match m compared with what was sent
// lies: the submatch g ("kept"), or the whole match when the pattern has
// none (g is -1) or it did not take part in the match.
func keptSpan(m []int, g int) (start, end int) {
	if g == -1 || m[2*g] == -1 {
		return m[0], m[1]
	}
	return m[2*g], m[2*g+1]
}

// triggered reports whether any rule could match s: false means String(s)
// would return s unchanged, which lets callers skip work on clean text.
func (r *Redactor) triggered(s string) bool {
	if r == nil {
		return false
	}
	var buf [lowerBufSize]byte
	var scan textScan
	lower := lowerASCII(buf[:0], s)
	scan.reset(lower)
	for i := range r.rules {
		if r.rules[i].sent && r.call.hasSecretIn(s) || r.rules[i].mayMatch(&scan, lower, s) {
			return true
		}
	}
	return false
}

// mayMatch reports whether the rule can match s, whose lower-cased text
// scan was reset with: it is active, one of its triggers (if it has any)
// occurs, and its cheap check (if any) passes.
func (r *Rule) mayMatch(scan *textScan, lower, s string) bool {
	if !r.active() {
		return false
	}
	if len(r.Triggers) > 0 && !scan.has(lower, r.Triggers) {
		return false
	}
	return r.pre == nil || r.pre(s)
}

// String redacts s with the default rules: stack traces and source
// positions, goroutine dumps, absolute paths, passwords in URLs and DSNs,
// bearer tokens, JWTs, common API keys, PEM private keys and the values of
// secret-named keys.
func String(s string) string { return defaultRedactor.String(s) }

// IsSecretKey reports whether a member, parameter, header or variable name
// names a credential, whose value is never shown or logged whatever its
// type: password, db_password, dbPassword, AWS_SECRET_ACCESS_KEY,
// GITHUB_TOKEN, x-api-key, clientSecret, authorization, session_id. Names
// of metadata stay readable: token_count, password_min_length, secret_name,
// auth_type; so do pagination tokens (page_token, nextPageToken), which an
// agent needs to page, and "tokens" (LLM usage counts). It is the one
// matcher behind text pairs, JSON members, logged arguments and validation
// previews.
func IsSecretKey(name string) bool { return leak.IsSecretKey(name) }
