package hints

import (
	"log/slog"

	core "github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/redact"
)

// Option configures a [Registry].
type Option = core.Option

// WithLogger sets where panics in hint functions and configuration
// warnings are logged. The default is [slog.Default] at the time of the
// call.
func WithLogger(l *slog.Logger) Option { return core.WithLogger(l) }

// WithRedactor sets the redactor every hint's text goes through. The
// default is [redact.Default]. Pass the same one to the envelope and
// redact layers if you extend the rules.
func WithRedactor(r *redact.Redactor) Option { return core.WithRedactor(r) }

// WithoutSuccessText leaves success hints out of the result's content, so
// they appear only under its _meta key [MetaKey], for clients that show
// every text content item to a human.
func WithoutSuccessText() Option { return core.WithoutSuccessText() }
