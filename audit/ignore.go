package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Ignore lists accepted findings, each with the reason it is accepted, so
// that a team can gate a legacy server in CI without fixing everything
// first. It is read from JSON (--ignore FILE):
//
//	{"ignore": [
//	  {"check": "C.enum", "tool": "search", "path": "inputSchema.properties.category",
//	   "reason": "categories are open-ended upstream; tracked in #12"}
//	]}
type Ignore struct {
	// Entries are the accepted findings; a finding is ignored by the first
	// entry that matches it.
	Entries []IgnoreEntry `json:"ignore"`
}

// IgnoreEntry accepts the findings of one check, on one tool or all of
// them, at one path or all of them.
type IgnoreEntry struct {
	// Check is the check ID, e.g. "C.enum". Required.
	Check string `json:"check"`
	// Tool limits the entry to one tool; empty matches every tool.
	Tool string `json:"tool,omitempty"`
	// Path limits the entry to one path; empty matches every path.
	Path string `json:"path,omitempty"`
	// Reason says why the finding is accepted. Required.
	Reason string `json:"reason"`
}

// IgnoredFinding is a finding an [Ignore] entry accepted.
type IgnoredFinding struct {
	Finding
	// Reason is the accepting entry's reason.
	Reason string `json:"reason"`
}

// ReadIgnore reads an ignore list. Every entry needs a known check ID and
// a reason.
func ReadIgnore(r io.Reader) (*Ignore, error) {
	var ig Ignore
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ig); err != nil {
		return nil, fmt.Errorf("audit: ignore list: %w", err)
	}
	var errs []error
	for i, e := range ig.Entries {
		if _, ok := CheckByID(e.Check); !ok {
			errs = append(errs, fmt.Errorf("entry %d: unknown check %q", i+1, e.Check))
		}
		if e.Reason == "" {
			errs = append(errs, fmt.Errorf("entry %d (%s): a reason is required", i+1, e.Check))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("audit: ignore list: %w", err)
	}
	return &ig, nil
}

func (e IgnoreEntry) matches(f Finding) bool {
	return e.Check == f.Check && (e.Tool == "" || e.Tool == f.Tool) && (e.Path == "" || e.Path == f.Path)
}

// apply splits findings into those kept and those ignored, and returns the
// entries that matched nothing.
func (ig *Ignore) apply(fs []Finding) (kept []Finding, ignored []IgnoredFinding, unused []IgnoreEntry) {
	used := make([]bool, len(ig.Entries))
	for _, f := range fs {
		hit := -1
		for i, e := range ig.Entries {
			if e.matches(f) {
				hit = i
				break
			}
		}
		if hit < 0 {
			kept = append(kept, f)
			continue
		}
		used[hit] = true
		ignored = append(ignored, IgnoredFinding{Finding: f, Reason: ig.Entries[hit].Reason})
	}
	for i, e := range ig.Entries {
		if !used[i] {
			unused = append(unused, e)
		}
	}
	return kept, ignored, unused
}
