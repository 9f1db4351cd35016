package gosdk

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpguard/mcpguard/core/redact"
)

// redactResult returns a copy of res with its client-visible text
// redacted by r, or res itself, without allocating, when nothing needed
// redaction. It never modifies res or anything res points to; the copy
// keeps what GetError returns.
//
// Positions: text content; resource links (URI, name, title, description);
// embedded resources (text, URI; a blob's URI); sampling tool use and tool
// result items; the _meta of the result and of every content item;
// structuredContent (a json.RawMessage, as go-sdk's typed handlers set it,
// or any value). Image and audio data and resource blobs are binary and
// left alone: rewriting base64 would corrupt it, and text rules cannot
// read it.
func redactResult(r *redact.Redactor, res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	w := walker{r}
	content := w.contents(res.Content)
	meta, metaChanged := w.meta(res.Meta)
	structured, sChanged := r.Value(res.StructuredContent)
	if content == nil && !metaChanged && !sChanged {
		return res
	}
	out := *res
	if content != nil {
		out.Content = content
	}
	if metaChanged {
		out.Meta = meta
	}
	if sChanged {
		out.StructuredContent = structured
	}
	return &out
}

// walker walks go-sdk's result types; the text and value rules are the
// shared Redactor's.
type walker struct{ *redact.Redactor }

// contents returns a redacted copy of cs, or nil when nothing changed.
func (w walker) contents(cs []mcp.Content) []mcp.Content { return redact.Items(cs, w.content) }

// content redacts one item into a copy; an untouched item costs no
// allocation and the caller's item is never modified.
func (w walker) content(c mcp.Content) (mcp.Content, bool) {
	switch v := c.(type) {
	case *mcp.TextContent:
		if v != nil {
			return w.text(v)
		}
	case *mcp.ImageContent:
		if v == nil {
			break
		}
		if m, ok := w.meta(v.Meta); ok {
			cp := *v
			cp.Meta = m
			return &cp, true
		}
	case *mcp.AudioContent:
		if v == nil {
			break
		}
		if m, ok := w.meta(v.Meta); ok {
			cp := *v
			cp.Meta = m
			return &cp, true
		}
	case *mcp.ResourceLink:
		if v != nil {
			return w.link(v)
		}
	case *mcp.EmbeddedResource:
		if v != nil {
			return w.embedded(v)
		}
	case nil:
	default: // sampling's tool use and tool result items, later kinds
		return w.other(c)
	}
	return c, false
}

func (w walker) text(v *mcp.TextContent) (mcp.Content, bool) {
	t := w.Text(v.Text)
	m, mc := w.meta(v.Meta)
	if t == v.Text && !mc {
		return v, false
	}
	cp := *v
	cp.Text, cp.Meta = t, m
	return &cp, true
}

func (w walker) link(v *mcp.ResourceLink) (mcp.Content, bool) {
	cp := *v
	changed := false
	for _, f := range []*string{&cp.URI, &cp.Name, &cp.Title, &cp.Description} {
		if t := w.String(*f); t != *f {
			*f, changed = t, true
		}
	}
	m, mc := w.meta(v.Meta)
	if !changed && !mc {
		return v, false
	}
	cp.Meta = m
	return &cp, true
}

func (w walker) embedded(v *mcp.EmbeddedResource) (mcp.Content, bool) {
	m, mc := w.meta(v.Meta)
	rc, rChanged := w.resource(v.Resource)
	if !mc && !rChanged {
		return v, false
	}
	cp := *v
	cp.Meta, cp.Resource = m, rc
	return &cp, true
}

func (w walker) resource(v *mcp.ResourceContents) (*mcp.ResourceContents, bool) {
	if v == nil {
		return nil, false
	}
	uri, text := w.String(v.URI), v.Text
	if text != "" {
		text = w.Text(text)
	}
	m, mc := w.meta(v.Meta)
	if uri == v.URI && text == v.Text && !mc {
		return v, false
	}
	cp := *v
	cp.URI, cp.Text, cp.Meta = uri, text, m
	return &cp, true
}

// meta redacts a _meta's values, key-aware.
func (w walker) meta(m mcp.Meta) (mcp.Meta, bool) {
	if len(m) == 0 {
		return m, false
	}
	v, changed := w.Value(map[string]any(m))
	if !changed {
		return m, false
	}
	out, _ := v.(map[string]any) // a _meta masked whole is dropped, not sent
	return out, true
}

// other redacts content kinds that are not a tool's usual output
// (sampling's tool use and tool result items, kinds a later go-sdk adds)
// through their JSON encoding.
func (w walker) other(c mcp.Content) (mcp.Content, bool) {
	b, err := c.MarshalJSON()
	if err != nil {
		return c, false
	}
	out, ok := w.JSON(string(b))
	if !ok || out == string(b) {
		return c, false
	}
	return rawContent{Content: c, raw: json.RawMessage(out)}, true
}

// rawContent is content sent as already-encoded JSON; it embeds the item
// it replaces only to be an mcp.Content.
type rawContent struct {
	mcp.Content
	raw json.RawMessage
}

// MarshalJSON returns the redacted encoding.
func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }
