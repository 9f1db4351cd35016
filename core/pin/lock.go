package pin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/core/wire"
)

// Version is the lock format version [Lock.WriteTo] writes.
const Version = 2

// MaxLockBytes bounds the lock [ReadLock] reads.
const MaxLockBytes = 64 << 20

// Lock is a set of approved tool definitions: mcpguard-audit's baseline
// file. Build one with [NewLock] from a server's listing or read one with
// [ReadLock]; it is not changed after.
type Lock struct {
	server string
	tools  []Tool
	byName map[string]int
}

// Tool is one approved definition of a [Lock].
type Tool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// SHA256 is the hex SHA-256 of Definition.
	SHA256 string `json:"sha256"`
	// Definition is the pinned part of the tool's definition in RFC 8785
	// canonical form.
	Definition json.RawMessage `json:"definition"`
}

// NewLock pins the tool definitions of a listing (each the JSON object
// tools/list carries) under the server's name. It refuses a definition
// with no canonical form, and two tools of one name.
func NewLock(server string, tools []json.RawMessage) (*Lock, error) {
	l := &Lock{server: server, byName: make(map[string]int, len(tools))}
	for _, t := range tools {
		p, err := Of(t)
		if err != nil {
			return nil, err
		}
		if err := l.add(p); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(l.tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	for i, t := range l.tools {
		l.byName[t.Name] = i
	}
	return l, nil
}

func (l *Lock) add(t Tool) error {
	if _, dup := l.byName[t.Name]; dup {
		return fmt.Errorf("pin: two tools named %q", t.Name)
	}
	l.byName[t.Name] = len(l.tools)
	l.tools = append(l.tools, t)
	return nil
}

// Server is the name of the server the lock was written from.
func (l *Lock) Server() string { return l.server }

// Tools returns the approved tools, sorted by name.
func (l *Lock) Tools() []Tool { return slices.Clone(l.tools) }

// Tool returns the approved definition of the tool named name.
func (l *Lock) Tool(name string) (Tool, bool) {
	i, ok := l.byName[name]
	if !ok {
		return Tool{}, false
	}
	return l.tools[i], true
}

// WriteTo writes the lock as JSON, one line per tool, sorted by name.
func (l *Lock) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\"mcpguard_baseline\": %d, \"server\": %s, \"tools\": [", Version, quote(l.server))
	for i, t := range l.tools {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n  {\"name\": %s, \"sha256\": %q, \"definition\": %s}", quote(t.Name), t.SHA256, t.Definition)
	}
	b.WriteString("\n]}\n")
	return b.WriteTo(w)
}

// quote writes s as a JSON string without escaping <, > and &.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// lockFile is a lock as it is written.
type lockFile struct {
	Version int    `json:"mcpguard_baseline"`
	Server  string `json:"server"`
	Tools   []Tool `json:"tools"`
}

// ReadLock reads a lock written by [Lock.WriteTo]. It refuses a lock over
// [MaxLockBytes], another format, two tools of one name, and any
// definition whose digest does not match it (edited by hand).
func ReadLock(r io.Reader) (*Lock, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxLockBytes+1))
	if err != nil {
		return nil, fmt.Errorf("pin: lock: %w", err)
	}
	if len(data) > MaxLockBytes {
		return nil, fmt.Errorf("pin: lock: over %d bytes", MaxLockBytes)
	}
	if _, err := wire.CanonicalDocument(nil, data); err != nil {
		return nil, fmt.Errorf("pin: lock: not JSON, or a member named twice")
	}
	var f lockFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("pin: lock: %w", err)
	}
	if f.Version != Version {
		return nil, fmt.Errorf("pin: lock: format %d, want %d (write it again with mcpguard-audit --baseline)", f.Version, Version)
	}
	l := &Lock{server: f.Server, byName: make(map[string]int, len(f.Tools))}
	for _, t := range f.Tools {
		p, err := Of(t.Definition)
		if err != nil || p.Name != t.Name || p.SHA256 != t.SHA256 {
			return nil, fmt.Errorf("pin: lock: the digest of %q does not match its definition (edited by hand?); write it again with mcpguard-audit --baseline", t.Name)
		}
		if err := l.add(p); err != nil {
			return nil, fmt.Errorf("pin: lock: %w", err)
		}
	}
	return l, nil
}

// Of returns the pin of a listed tool definition: [Definition] as a
// [Tool].
func Of(def []byte) (Tool, error) {
	name, canonical, sum, err := Definition(def)
	return Tool{Name: name, SHA256: sum, Definition: canonical}, err
}
