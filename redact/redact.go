package redact

import (
	"strings"
)

// Redactor applies an ordered list of rules. It is immutable and safe for
// concurrent use.
type Redactor struct {
	rules []Rule
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
	rules := make([]Rule, 0, len(r.rules)+len(extra))
	rules = append(append(rules, r.rules...), extra...)
	return &Redactor{rules: rules}
}

// Rules returns a copy of the Redactor's rules.
func (r *Redactor) Rules() []Rule { return append([]Rule(nil), r.rules...) }

// String returns s with every rule applied. Text that no rule's triggers
// occur in is returned as is, without allocating.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	var lower string
	for i := range r.rules {
		rule := &r.rules[i]
		if rule.Pattern == nil {
			continue
		}
		if len(rule.Triggers) > 0 {
			if lower == "" {
				lower = strings.ToLower(s)
			}
			if !containsAny(lower, rule.Triggers) {
				continue
			}
		}
		out := rule.Pattern.ReplaceAllString(s, rule.Replacement)
		if out != s {
			s = out
			lower = ""
		}
	}
	return s
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if len(sub) > 1 && sub[0] == '^' {
			if strings.HasPrefix(s, sub[1:]) {
				return true
			}
			continue
		}
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// triggered reports whether any rule could match s: false means String(s)
// would return s unchanged, which lets callers skip work on clean text.
func (r *Redactor) triggered(s string) bool {
	if r == nil || s == "" {
		return false
	}
	lower := strings.ToLower(s)
	for i := range r.rules {
		if r.rules[i].Pattern == nil {
			continue
		}
		if len(r.rules[i].Triggers) == 0 || containsAny(lower, r.rules[i].Triggers) {
			return true
		}
	}
	return false
}

// String redacts s with the default rules: stack traces and source
// positions, goroutine dumps, absolute paths, passwords in URLs and DSNs,
// bearer tokens, JWTs, common API keys, PEM private keys and
// password=/token=-style pairs.
func String(s string) string { return defaultRedactor.String(s) }
