package seal

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/wire"
	"github.com/mcpguard/mcpguard/internal/logkey"
)

// MethodCallTool is the method of the calls the fronts seal the state of.
const MethodCallTool = "tools/call"

// RefusedMessage is the message of the envelope a client receives for a
// requestState that does not open, whatever the reason.
const RefusedMessage = "requestState did not verify: it was changed, has expired, or was issued for another call"

// RefusedStep is the next step of that envelope.
const RefusedStep = "call the tool again with its arguments and without requestState or inputResponses, to start over"

// LogMessage is the message of the server's record of a refused state.
const LogMessage = "mcpguard: requestState refused"

// refused is immutable and shared: every refusal is the same error.
var refused = envelope.ReplaceNextSteps(envelope.New(envelope.ValidationError, RefusedMessage), RefusedStep)

// A Guard is what each SDK front and mcpguard-proxy run around a tool
// call: it opens the state a call echoes and seals the one its result
// hands out, and it answers and logs a state that does not open the same
// way on every front.
type Guard struct {
	// Sealer seals and opens.
	Sealer *Sealer
	// Logger receives the reason a state did not open; slog.Default() at
	// the time of the call when nil.
	Logger *slog.Logger
	// Caller, when set, returns who calls (an authenticated principal),
	// bound into every state; nil binds no caller.
	Caller func(context.Context) string
}

// NewGuard returns a Guard over a Sealer for ring (nil: a per-process
// random key, see [RandomKeyRing]) with opts.
func NewGuard(ring *KeyRing, logger *slog.Logger, caller func(context.Context) string, opts ...Option) *Guard {
	return &Guard{Sealer: New(ring, opts...), Logger: logger, Caller: caller}
}

// Binding returns the binding of a tools/call of tool with these raw
// arguments (JSON; nil when absent), made in ctx.
func (g *Guard) Binding(ctx context.Context, tool string, args []byte) Binding {
	b := Binding{Method: MethodCallTool, Name: tool, Arguments: wire.ArgumentsDigest(args)}
	if g.Caller != nil {
		b.Caller = g.Caller(ctx)
	}
	return b
}

// Open returns the plaintext of the state a call echoed, or the error the
// client is answered with: a validation_error coded error (see
// [RefusedMessage]) that says nothing of the reason, which goes to the
// Guard's logger at Warn with the tool's name.
func (g *Guard) Open(ctx context.Context, b Binding, sealed string) (string, error) {
	state, err := g.Sealer.Open(b, sealed)
	if err == nil {
		return state, nil
	}
	return "", g.refuse(ctx, b, err)
}

// refuse logs why a state echoed for the call b did not open, err, and
// returns the one refusal the client is answered with.
func (g *Guard) refuse(ctx context.Context, b Binding, err error) error {
	logger := g.Logger
	if logger == nil {
		logger = slog.Default()
	}
	attrs := []slog.Attr{slog.String(logkey.Tool, b.Name), slog.String(logkey.Error, err.Error())}
	if errors.Is(err, ErrUnknownKey) {
		attrs = append(attrs, slog.String(logkey.Hint, unknownKeyHint(g.Sealer.ring)))
	}
	logger.LogAttrs(ctx, slog.LevelWarn, LogMessage, attrs...)
	return refused
}

// unknownKeyHint says, for the log, why a state sealed under a key the
// ring lacks reached this server, and where the fix is.
func unknownKeyHint(r *KeyRing) string {
	const ring = "; replicas behind one address need one shared key ring (WithStateKeys on each front, " +
		"mcpguard-proxy --state-keys-file or $MCPGUARD_STATE_KEYS): see docs/protocol-2026-07-28.md#keys"
	if r.random {
		return "this server has no key ring: it seals with a random key of its own process, so another replica's " +
			"state, or one from before a restart, does not open here" + ring
	}
	return "the key is not in this server's key ring: another replica's ring, or a key rotated out too soon" + ring
}

// Seal returns the state a result hands out, sealed, or an internal
// error (the state is over the Sealer's maximum), which the fronts render
// as an internal_error envelope and log under an incident ID.
func (g *Guard) Seal(b Binding, state string) (string, error) {
	sealed, err := g.Sealer.Seal(b, state)
	if err != nil {
		return "", envelope.Internal(errors.Join(errors.New("sealing requestState"), err))
	}
	return sealed, nil
}
