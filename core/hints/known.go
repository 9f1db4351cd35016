package hints

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// references is what a Registry learnt of the server's tools: once
// checked, the tools its hints name that the server does not have. The
// Tools of the Registry share it.
type references struct {
	checked atomic.Bool
	mu      sync.Mutex
	// unknown is nil until a check found a hint naming a missing tool;
	// then it holds those tools, and is never written again.
	unknown atomic.Pointer[map[string]bool]
}

// clean reports whether no step has to be dropped: nothing checked yet,
// or every named tool exists. It does not allocate.
func (r *references) clean() bool { return r == nil || r.unknown.Load() == nil }

// drops reports whether a step naming tool must not be sent.
func (r *references) drops(tool string) bool {
	if tool == "" || r == nil {
		return false
	}
	u := r.unknown.Load()
	return u != nil && (*u)[tool]
}

// Checked reports whether the registry has checked its tool references
// against a server's tools ([Registry.CheckOnce]).
func (r *Registry[Req, Res]) Checked() bool { return r.refs.checked.Load() }

// CheckOnce checks, the first time it is called with a complete list, the
// tools the rules name ([Call] steps, [Mentions]) and the tools they are
// for against the server's tools, as [CheckNames] does. Each problem is
// logged once, as a warning, and from then on no step naming a tool the
// server does not have is sent: an agent told to call a tool that does not
// exist loops on the error. A rule for a missing tool never applies, and is
// only logged.
//
// tools returns the names of the server's tools and whether the list is
// complete (a front that learns them from a paginated answer, or finds no
// server in ctx, says false); it is called only until a check happened.
// A front calls CheckOnce at the first call of a tool with a rule, or at a
// tools/list, so that the check costs one atomic load afterwards. Checks
// are made against the first server that answers: a Registry shared by
// servers with different tools is checked against one of them only.
// Concurrent calls while a check runs skip it.
func (r *Registry[Req, Res]) CheckOnce(ctx context.Context, tools func() ([]string, bool)) {
	if r.refs.checked.Load() || !r.refs.mu.TryLock() {
		return
	}
	defer r.refs.mu.Unlock()
	if r.refs.checked.Load() {
		return
	}
	var names []string
	complete := false
	p := safe.Call(func() { names, complete = tools() })
	if p != nil || !complete {
		return
	}
	r.refs.checked.Store(true)
	err := CheckNames(names, r.rules...)
	if err == nil {
		return
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	unknown := map[string]bool{}
	for _, e := range errs {
		var ref *ReferenceError
		if !errors.As(e, &ref) {
			continue
		}
		msg := "mcpguard/hints: a hint names a tool the server does not have; steps naming it are not sent"
		if ref.Rule == ref.Tool {
			msg = "mcpguard/hints: a rule is for a tool the server does not have; it never applies"
		} else {
			unknown[ref.Tool] = true
		}
		safe.Log(ctx, r.o.log(), slog.LevelWarn, msg,
			slog.String(logkey.Tool, ref.Rule),
			slog.String(logkey.Error, ref.Error()))
	}
	if len(unknown) > 0 {
		r.refs.unknown.Store(&unknown)
	}
}
