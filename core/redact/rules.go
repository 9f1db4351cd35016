package redact

import (
	"regexp"
	"strings"

	"github.com/mcpguard/mcpguard/internal/leak"
)

// Placeholder replaces every secret the default rules find.
const Placeholder = leak.Placeholder

// Rule is one redaction: every match of Pattern is replaced by Replacement,
// which may refer to submatches as in [regexp.Regexp.ReplaceAllString].
//
// Triggers make a rule cheap on text it cannot match: when the rule has
// triggers, its pattern runs only if the text contains at least one of them,
// compared case-insensitively. Give a rule triggers whenever its matches
// always contain some fixed text; a rule without triggers runs on every
// text.
type Rule struct {
	// Name identifies the rule, "category/kind" for the defaults
	// ("paths/unix"); [Redactor.Without] drops rules by name or category.
	Name string
	// Pattern finds what to remove.
	Pattern *regexp.Regexp
	// Replacement is what a match becomes; "$1" and "${name}" expand.
	Replacement string
	// Triggers are lower-case fixed strings, one of which every match
	// contains. A trigger that starts with "^" must start the text.
	Triggers []string
	// KeepSent leaves a match alone when the call's own arguments contain
	// it verbatim (see [Redactor.ForCall]): the client sent it, so it is
	// no leak. Only the submatch named "kept" is compared when the pattern
	// has one. The default path rules keep what was sent; secret rules
	// never do.
	KeepSent bool
	// KeepInSuccess leaves the rule out of the redaction of successful
	// results ([Redactor.ForSuccess]): what it finds is what a tool's
	// output holds by design. The default path rules and the bare source
	// positions (main.go:12) are so marked; secret and stack trace rules
	// never are.
	KeepInSuccess bool

	// pre is a default rule's cheap scan after its triggers matched.
	pre func(string) bool
	// spans finds a default rule's matches in code rather than with an
	// expression: the values of secret-named keys, high-entropy tokens.
	spans func(string, []leak.SecretValue) []leak.SecretValue
	// accept vets each match of a default rule's expression; false keeps
	// the match (a quoted escape that only looks like a network path).
	accept func(string) bool
	// sent marks the rule of the call's own secrets (SentSecretsRule): it
	// matches what the call's arguments carried under a secret-named key,
	// so it acts only in a Redactor from ForCall.
	sent bool
}

func (r *Rule) active() bool { return r.Pattern != nil || r.spans != nil }

// kept returns the index of the submatch compared with what was sent.
func (r *Rule) kept() int { return r.Pattern.SubexpIndex("kept") }

// NewRule compiles expr into a Rule, panicking on an invalid expression so
// that a bad rule fails at start-up, never at call time.
func NewRule(name, expr, replacement string, triggers ...string) Rule {
	lower := make([]string, len(triggers))
	for i, t := range triggers {
		lower[i] = strings.ToLower(t)
	}
	return Rule{Name: name, Pattern: regexp.MustCompile(expr), Replacement: replacement, Triggers: lower}
}

// DefaultRules returns the rules [String] applies, in order. The slice is a
// copy: append to it and pass it to [New] to extend the defaults.
func DefaultRules() []Rule { return append([]Rule(nil), defaultRules...) }

// defaultRules are built from the one list of leak kinds that the test
// harness and the audit detect with, so "redacted" and "not a leak" agree.
// SentSecretsRule names the default rule that redacts, wherever it comes
// back, a value the call's own arguments carried under a secret-named key
// ("password", "api_key", "client_secret"; see [IsSecretKey]), strings
// and numbers of at least four bytes, verbatim: a login tool's "login
// failed for s3cr3t-value-1" loses the password the client sent, however
// plain it looks. It acts in a Redactor from [Redactor.ForCall], which
// every front and the proxy use for a call's results, and runs before
// the other rules, which could cut a secret in two. Without(SentSecretsRule)
// turns it off.
const SentSecretsRule = leak.SentSecretsName

var defaultRules = func() []Rule {
	var out []Rule
	for _, s := range leak.Specs {
		if s.DetectOnly {
			continue
		}
		rule := Rule{Name: s.Name, Replacement: s.Replacement, Triggers: s.Triggers, KeepSent: s.KeepSent, KeepInSuccess: s.Output,
			pre: s.Pre, spans: s.Spans, accept: s.Accept, sent: s.Sent}
		if s.Spans == nil && !s.Sent {
			rule.Pattern = leak.Compiled(s.Name)
		}
		out = append(out, rule)
	}
	return out
}()
