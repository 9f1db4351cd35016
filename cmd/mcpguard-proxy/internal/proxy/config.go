package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/hints"
	"github.com/mcpguard/mcpguard/internal/logkey"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// maxConfig bounds the hints file.
const maxConfig = 1 << 20

// Config is a hints file: what the hints package's rules say in code,
// said in YAML or JSON for a server whose code does not change.
//
//	mappings:
//	  - match: "no such file"        # text of the failure, any case
//	    code: not_found
//	hints:
//	  - tool: fs_read
//	    code: not_found              # and/or match: "..."
//	    steps:
//	      - call: fs_list
//	        why: to see which files exist
//	      - text: Ask the user for the exact path.
//	    replace_defaults: false
type Config struct {
	// Mappings classify failures by their text, before the core's own
	// heuristics: the first that matches gives the code.
	Mappings []Mapping `json:"mappings" yaml:"mappings"`
	// Hints add next steps to a tool's failures.
	Hints []HintConfig `json:"hints" yaml:"hints"`
}

// Mapping gives the code of failures whose text contains Match, of one
// tool or (Tool empty) of every tool.
type Mapping struct {
	Tool  string        `json:"tool,omitempty" yaml:"tool"`
	Match string        `json:"match" yaml:"match"`
	Code  envelope.Code `json:"code" yaml:"code"`
}

// HintConfig adds Steps to failures of Tool whose code is Code, whose text
// contains Match, or both.
type HintConfig struct {
	Tool            string        `json:"tool" yaml:"tool"`
	Code            envelope.Code `json:"code,omitempty" yaml:"code"`
	Match           string        `json:"match,omitempty" yaml:"match"`
	Steps           []StepConfig  `json:"steps" yaml:"steps"`
	ReplaceDefaults bool          `json:"replace_defaults,omitempty" yaml:"replace_defaults"`
}

// StepConfig is one step: a sentence (Text), or a call of another tool
// (Call, and Why), which is checked against the upstream's tools/list.
type StepConfig struct {
	Text string `json:"text,omitempty" yaml:"text"`
	Call string `json:"call,omitempty" yaml:"call"`
	Why  string `json:"why,omitempty" yaml:"why"`
}

// LoadConfig reads a hints file, YAML or JSON (JSON is YAML), and checks
// it. An unknown member is an error, so a typo does not silently drop a
// hint.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfig {
		return nil, fmt.Errorf("%s: larger than %s", path, sizeText(maxConfig))
	}
	return ParseConfig(b)
}

// ParseConfig decodes and checks a hints file's contents.
func ParseConfig(b []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("hints file: %w", err)
	}
	return &c, c.check()
}

func (c *Config) check() error {
	var errs []error
	for i, m := range c.Mappings {
		if strings.TrimSpace(m.Match) == "" || !m.Code.Valid() {
			errs = append(errs, fmt.Errorf("mappings[%d]: needs a match and one of the codes %v", i, envelope.Codes()))
		}
	}
	for i, h := range c.Hints {
		switch {
		case strings.TrimSpace(h.Tool) == "":
			errs = append(errs, fmt.Errorf("hints[%d]: needs a tool", i))
		case h.Code == "" && h.Match == "":
			errs = append(errs, fmt.Errorf("hints[%d] (%s): needs a code, a match or both", i, h.Tool))
		case h.Code != "" && !h.Code.Valid():
			errs = append(errs, fmt.Errorf("hints[%d] (%s): %q is not one of the codes %v", i, h.Tool, h.Code, envelope.Codes()))
		case len(h.Steps) == 0:
			errs = append(errs, fmt.Errorf("hints[%d] (%s): needs steps", i, h.Tool))
		}
		for j, s := range h.Steps {
			if (s.Text == "") == (s.Call == "") {
				errs = append(errs, fmt.Errorf("hints[%d].steps[%d] (%s): give either text or call", i, j, h.Tool))
			}
		}
	}
	return errors.Join(errs...)
}

// rules compiles the hints into the core's rules.
func (c *Config) rules() []hints.Rule[envelope.Call, json.RawMessage] {
	var out []hints.Rule[envelope.Call, json.RawMessage]
	for _, h := range c.Hints {
		steps := make([]hints.Step, len(h.Steps))
		for i, s := range h.Steps {
			if s.Call != "" {
				steps[i] = hints.Call(s.Call, s.Why)
			} else {
				steps[i] = hints.Text(s.Text)
			}
		}
		var hs []hints.Hint[envelope.Call, json.RawMessage]
		if h.Match == "" {
			hs = append(hs, hints.OnError[envelope.Call, json.RawMessage](h.Code, steps...))
		} else {
			code, match := h.Code, strings.ToLower(h.Match)
			hs = append(hs, hints.OnErrorFunc[envelope.Call, json.RawMessage](
				func(_ context.Context, _ envelope.Call, f hints.Failure) []hints.Step {
					if (code == "" || f.Code == code) && strings.Contains(strings.ToLower(f.Message), match) {
						return steps
					}
					return nil
				}), hints.Mentions[envelope.Call, json.RawMessage](refs(steps)...))
		}
		if h.ReplaceDefaults {
			hs = append(hs, hints.ReplaceDefaults[envelope.Call, json.RawMessage]())
		}
		out = append(out, hints.For(h.Tool, hs...))
	}
	return out
}

func refs(steps []hints.Step) []string {
	var out []string
	for _, s := range steps {
		if s.Tool() != "" {
			out = append(out, s.Tool())
		}
	}
	return out
}

// WithConfig applies a hints file's mappings and hints. It panics on a
// file that [LoadConfig] would refuse.
func WithConfig(c *Config) Option {
	if err := c.check(); err != nil {
		panic("proxy: WithConfig: " + err.Error())
	}
	rules := c.rules()
	reg := hints.NewRegistry(rules, func(call envelope.Call) envelope.Call { return call })
	return func(o *options) {
		o.mappings = c.Mappings
		o.rules = rules
		o.hints = reg
	}
}

// mapped returns the code a mapping gives the failure text of tool.
func (o *options) mapped(tool, text string) (envelope.Code, bool) {
	for _, m := range o.mappings {
		if (m.Tool == "" || m.Tool == tool) && strings.Contains(strings.ToLower(text), strings.ToLower(m.Match)) {
			return m.Code, true
		}
	}
	return "", false
}

// hint puts the tool's configured steps first in env's next steps.
func (g *Guard) hint(ctx context.Context, c *call, env *envelope.Envelope) {
	if g.o.hints == nil {
		return
	}
	if t := g.o.hints.Lookup(c.tool); t != nil {
		t.Merge(ctx, c.core(), env, g.r)
	}
}

// checkHints logs every hint that names a tool the upstream does not list:
// the upstream's tools are known only once it answered tools/list.
func (g *Guard) checkHints(names []string) {
	if len(g.o.rules) == 0 {
		return
	}
	if err := hints.CheckNames(names, g.o.rules...); err != nil {
		safe.Log(context.Background(), g.o.logger, slog.LevelError,
			"mcpguard-proxy: the hints file names tools the server does not have", slog.String(logkey.Error, err.Error()))
	}
}
