package pin

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/internal/str"
)

// Verdict is what the pins say of a listed tool definition.
type Verdict uint8

const (
	// Approved: the definition is the one pinned.
	Approved Verdict = iota
	// Changed: the tool is pinned with another definition.
	Changed
	// Unpinned: the lock has no tool of this name.
	Unpinned
	// Unreadable: the definition has no canonical form or no name.
	Unreadable
)

// String names the verdict: "approved", "changed", "unpinned" or
// "unreadable".
func (v Verdict) String() string {
	switch v {
	case Approved:
		return "approved"
	case Changed:
		return "changed"
	case Unpinned:
		return "unpinned"
	}
	return "unreadable"
}

// MaxRemembered bounds the definitions a [Pins] remembers beyond as many
// as its lock has tools, so a server listing ever new definitions cannot
// grow memory; past it, a definition is reviewed (and logged) again at
// each sight.
const MaxRemembered = 4096

// MaxRememberedBytes bounds the bytes of the definitions a [Pins]
// remembers.
const MaxRememberedBytes = 32 << 20

// Pins enforces a [Lock] at run time. It is safe for concurrent use.
type Pins struct {
	lock   *Lock
	logger *slog.Logger

	mu    sync.Mutex
	seen  map[string]seen // by definition, as listed
	bytes int             // of the definitions in seen
}

type seen struct {
	name    string
	verdict Verdict
}

// New returns pins that enforce lock, logging each definition held back
// to logger (slog.Default() if nil). It panics if lock is nil.
func New(lock *Lock, logger *slog.Logger) *Pins {
	if lock == nil {
		panic("pin: New(nil): no lock to enforce")
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Pins{lock: lock, logger: logger, seen: make(map[string]seen)}
}

// Lock returns the lock the pins enforce.
func (p *Pins) Lock() *Lock { return p.lock }

// Review returns the name of a listed tool definition (the JSON object
// tools/list carries) and whether it may be listed and called. The first
// sight of a definition that is not approved is logged once, at warning
// level, with its difference from the pin; a definition seen before is
// not read again.
func (p *Pins) Review(ctx context.Context, def []byte) (name string, v Verdict) {
	p.mu.Lock()
	s, ok := p.seen[string(def)]
	p.mu.Unlock()
	if ok {
		return s.name, s.verdict
	}
	t, err := Of(def)
	switch pinned, isPinned := p.lock.Tool(t.Name); {
	case err != nil:
		v = Unreadable
	case !isPinned:
		v = Unpinned
	case pinned.SHA256 != t.SHA256:
		v = Changed
	}
	name = t.Name
	if p.remember(def, seen{name, v}) && v != Approved {
		p.log(ctx, v, t, def)
	}
	return name, v
}

// remember records a verdict and reports whether this sight is the one to
// log: false when another Review of the same definition, running at the
// same time, remembered it first.
func (p *Pins) remember(def []byte, s seen) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.seen[string(def)]; ok {
		return false
	}
	if len(p.seen) < len(p.lock.tools)+MaxRemembered && p.bytes+len(def) <= MaxRememberedBytes {
		p.seen[string(def)] = s
		p.bytes += len(def)
	}
	return true
}

// log writes the operator's line for a definition held back.
func (p *Pins) log(ctx context.Context, v Verdict, t Tool, def []byte) {
	attrs := []slog.Attr{slog.String("tool", t.Name), slog.String("verdict", v.String())}
	switch v {
	case Changed:
		pinned, _ := p.lock.Tool(t.Name)
		d := Diff(pinned.Definition, t.Definition)
		attrs = append(attrs, slog.String("changed", Parts(d)), slog.Any("diff", d), slog.String("sha256", t.SHA256), slog.String("pinned_sha256", pinned.SHA256))
	case Unpinned:
		attrs = append(attrs, slog.String("sha256", t.SHA256))
	default:
		attrs = append(attrs, slog.String("definition", str.Clip(string(def), 200, "…")))
	}
	p.logger.LogAttrs(ctx, slog.LevelWarn, "mcpguard: a tool's definition is not the one approved in the pin file: it is left out of tools/list and its calls are refused until the pin is written again", attrs...)
}

// Refusal returns the error a call to a tool held back is answered with
// (access_denied, not retryable, naming the tool and why), or nil for an
// approved tool. A front renders it like any other error.
func Refusal(name string, v Verdict) error {
	var why string
	switch v {
	case Approved:
		return nil
	case Changed:
		why = fmt.Sprintf("Tool %q is held back: its definition changed since it was approved, and the change awaits review.", name)
	case Unpinned:
		why = fmt.Sprintf("Tool %q is held back: it is new, and nobody has approved it yet.", name)
	default:
		why = fmt.Sprintf("Tool %q is held back: its definition cannot be checked against the approved ones.", name)
	}
	err := envelope.New(envelope.AccessDenied, why)
	return envelope.ReplaceNextSteps(err,
		"Do not call this tool again in this task; it stays refused until an operator approves it.",
		"Use another listed tool if one does what you need, or tell the user that this tool awaits approval.")
}
