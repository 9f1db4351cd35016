// Package leak is mcpguard's one list of what must not reach a client or a
// shipped log: stack traces, goroutine dumps, source positions, absolute
// paths and secret shapes, and the one matcher for keys that name a
// secret. The redact package builds its default rules from [Specs];
// middlewaretest.Leaks and the audit's leak check find leaks with [Find].
// Keeping both on one list is what makes "the redactor removes it" and "the
// harness flags it" the same statement.
package leak
