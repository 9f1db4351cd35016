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

// content redacts one item into a copy, read into core/redact's view of
// an item and redacted by its one walk (Redactor.Item); an untouched item
// costs no allocation and the caller's item is never modified.
func (w walker) content(c mcp.Content) (mcp.Content, bool) {
	switch v := c.(type) {
	case *mcp.TextContent:
		if v == nil {
			break
		}
		if it, ok := w.Item(redact.Item{Kind: redact.TextItem, Text: v.Text, Meta: fields(v.Meta)}); ok {
			cp := *v
			cp.Text, cp.Meta = it.Text, metaOf(it.Meta)
			return &cp, true
		}
	case *mcp.ImageContent:
		if v == nil {
			break
		}
		if it, ok := w.Item(redact.Item{Kind: redact.BinaryItem, Meta: fields(v.Meta)}); ok {
			cp := *v
			cp.Meta = metaOf(it.Meta)
			return &cp, true
		}
	case *mcp.AudioContent:
		if v == nil {
			break
		}
		if it, ok := w.Item(redact.Item{Kind: redact.BinaryItem, Meta: fields(v.Meta)}); ok {
			cp := *v
			cp.Meta = metaOf(it.Meta)
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

func (w walker) link(v *mcp.ResourceLink) (mcp.Content, bool) {
	it, ok := w.Item(redact.Item{Kind: redact.LinkItem, URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, Meta: fields(v.Meta)})
	if !ok {
		return v, false
	}
	cp := *v
	cp.URI, cp.Name, cp.Title, cp.Description, cp.Meta = it.URI, it.Name, it.Title, it.Description, metaOf(it.Meta)
	return &cp, true
}

func (w walker) embedded(v *mcp.EmbeddedResource) (mcp.Content, bool) {
	it := redact.Item{Kind: redact.ResourceItem, Meta: fields(v.Meta)}
	if r := v.Resource; r != nil {
		it.URI, it.Text, it.ResourceMeta = r.URI, r.Text, fields(r.Meta)
	}
	out, ok := w.Item(it)
	if !ok {
		return v, false
	}
	cp := *v
	cp.Meta = metaOf(out.Meta)
	if r := v.Resource; r != nil {
		rc := *r
		rc.URI, rc.Text, rc.Meta = out.URI, out.Text, metaOf(out.ResourceMeta)
		cp.Resource = &rc
	}
	return &cp, true
}

// fields is a _meta as the walk reads it.
func fields(m mcp.Meta) any {
	if len(m) == 0 {
		return nil
	}
	return map[string]any(m)
}

// metaOf converts a redacted _meta back; one masked whole is dropped, not
// sent.
func metaOf(v any) mcp.Meta {
	m, _ := v.(map[string]any)
	return m
}

// meta redacts a _meta's values, key-aware.
func (w walker) meta(m mcp.Meta) (mcp.Meta, bool) {
	v, changed := w.Value(fields(m))
	if !changed {
		return m, false
	}
	return metaOf(v), true
}

// other redacts content kinds that are not a tool's usual output
// (sampling's tool use and tool result items, kinds a later go-sdk adds)
// through their JSON encoding.
func (w walker) other(c mcp.Content) (mcp.Content, bool) {
	b, err := c.MarshalJSON()
	if err != nil {
		return c, false
	}
	it, ok := w.Item(redact.Item{JSON: string(b)})
	if !ok {
		return c, false
	}
	return rawContent{Content: c, raw: json.RawMessage(it.JSON)}, true
}

// rawContent is content sent as already-encoded JSON; it embeds the item
// it replaces only to be an mcp.Content.
type rawContent struct {
	mcp.Content
	raw json.RawMessage
}

// MarshalJSON returns the redacted encoding.
func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }
