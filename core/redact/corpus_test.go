package redact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/leak/leakcorpus"
)

// TestCorpus holds every text, JSON and log position of the core to the
// shared corpus; each SDK front holds its delivery paths to the same one.
func TestCorpus(t *testing.T) {
	t.Parallel()
	shapes := leakcorpus.Shapes()
	if len(shapes) < 100 {
		t.Fatalf("the corpus has %d shapes, want at least 100", len(shapes))
	}
	r := redact.Default()
	paths := map[string]func(text string) string{
		"String": redact.String,
		"Text of a JSON member": func(text string) string {
			b, _ := json.Marshal(map[string]string{"detail": text})
			return r.Text(string(b))
		},
		"Value": func(text string) string {
			v, _ := r.Value(map[string]any{"detail": text, "list": []any{text}})
			b, _ := json.Marshal(v)
			return string(b)
		},
		"RawJSON of a string": func(text string) string {
			b, _ := json.Marshal(text)
			out, _ := r.RawJSON(b)
			return string(out)
		},
		"Handler+JSONHandler": func(text string) string {
			return logThrough(func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) }, text)
		},
		"Handler+TextHandler": func(text string) string {
			return logThrough(func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) }, text)
		},
	}
	for name, deliver := range paths {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, sh := range shapes {
				out := deliver(sh.Text)
				for _, s := range sh.Secrets {
					if strings.Contains(out, s) || strings.Contains(out, jsonEscaped(s)) {
						t.Errorf("%s shape leaked %q: %q -> %s", sh.Category, s, sh.Text, out)
					}
				}
			}
		})
	}
	// The detector reads what the redactor writes: it flags every shape
	// before and none of what the redactor removes after.
	for _, sh := range shapes {
		out := redact.String(sh.Text)
		if len(rewritten(sh.Text)) == 0 && out != sh.Text {
			t.Errorf("the redactor changes %q but the detector flags nothing", sh.Text)
		}
		if m := rewritten(out); len(m) > 0 {
			t.Errorf("the detector finds %s in what the redactor emits for %q: %q", m[0].What, sh.Text, out)
		}
	}
	for _, text := range leakcorpus.Readable {
		if got := redact.String(text); got != text {
			t.Errorf("readable text %q became %q", text, got)
		}
	}
}

func logThrough(newHandler func(io.Writer) slog.Handler, text string) string {
	var buf bytes.Buffer
	l := slog.New(redact.Handler(newHandler(&buf)))
	l.Error(text, "err", errors.New(text), "detail", text, slog.Group("g", "detail", text))
	return buf.String()
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
