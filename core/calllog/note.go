package calllog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Note is what the stages of one call note of it for its record and its
// span, beyond what the client received: what a rate or concurrency
// limit made of a call it could hold (core/limit's Absorb), and how long
// it held it. The logging and telemetry layers, outside the stages, put
// one in the call's context ([Noting]) and read it once the call is
// answered; a stage finds it with [NoteFrom]. A call no limit held is
// noted nothing, at no cost. A nil *Note notes nothing. It is safe for
// concurrent use.
type Note struct {
	mu        sync.Mutex
	admission string
	held      time.Duration
}

// Admit notes that a limit made admission of the call ("held": it ran
// after the hold; "refused": answered with its refusal after the hold;
// "shed", as core/limit names them) after holding it for held. The holds
// of two limits add up; the last admission stands.
func (n *Note) Admit(admission string, held time.Duration) {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.admission = admission
	n.held += held
	n.mu.Unlock()
}

// Admission is what [Note.Admit] noted: the admission ("" when no limit
// held the call) and how long the call was held.
func (n *Note) Admission() (admission string, held time.Duration) {
	if n == nil {
		return "", 0
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.admission, n.held
}

// NoteKey is the key under which a context carries the call's *Note. A
// front whose per-call context answers its own Value may answer it with
// a Note it keeps (the parent's, if the parent has one), at no
// allocation; any other uses [Noting].
type NoteKey struct{}

// noted is a context carrying a Note: one allocation for both.
type noted struct {
	context.Context
	note Note
}

// Value returns the Note for NoteKey, else the parent's value.
func (c *noted) Value(key any) any {
	if _, ok := key.(NoteKey); ok {
		return &c.note
	}
	return c.Context.Value(key)
}

// Noting returns ctx carrying the call's Note, and the Note: the one ctx
// carries already (a layer outside noted the call first: the record and
// the span read the same Note), else a new one, at one allocation.
func Noting(ctx context.Context) (context.Context, *Note) {
	if n := NoteFrom(ctx); n != nil {
		return ctx, n
	}
	c := &noted{Context: ctx}
	return c, &c.note
}

// NoteFrom returns the Note of the call ctx serves, nil when no layer
// records it.
func NoteFrom(ctx context.Context) *Note {
	n, _ := ctx.Value(NoteKey{}).(*Note)
	return n
}

// Noting is [Noting] when lg would write a record of some outcome, else
// ctx and nil: a logger whose level drops every record costs a call
// nothing.
func (lg *Logger) Noting(ctx context.Context) (context.Context, *Note) {
	if !lg.l.Enabled(ctx, min(lg.success, lg.toolError, slog.LevelError)) {
		return ctx, nil
	}
	return Noting(ctx)
}
