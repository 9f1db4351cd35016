package redact

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/redact"
)

// Result returns a copy of res with its client-visible text redacted by r,
// or res itself, without allocating, when nothing needed redaction. It never
// modifies res or anything res points to.
//
// Positions: text content; resource links (URI, name, title, description);
// embedded resources, by value or by pointer (text, URI; a blob's URI);
// the _meta of the result and of every content item (strings, key-aware);
// structuredContent and RawStructuredContent (mcp-go sends the raw bytes
// when they are set, so both are redacted). Image and audio data and
// resource blobs are binary and left alone: rewriting base64 would corrupt
// it, and text rules cannot read it. Content kinds mcp-go adds later are
// redacted as JSON.
func Result(r *Redactor, res *mcp.CallToolResult) *mcp.CallToolResult {
	return walker{r}.result(res)
}

// walker walks mcp-go's result types; the text and value rules are the
// shared Redactor's.
type walker struct{ *Redactor }

func (r walker) result(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	content := r.contents(res.Content)
	meta, metaChanged := r.meta(res.Meta)
	structured, sChanged := r.Value(res.StructuredContent)
	raw, rawChanged := r.RawJSON(res.RawStructuredContent)
	if content == nil && !metaChanged && !sChanged && !rawChanged {
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
	if rawChanged {
		out.RawStructuredContent = raw
	}
	return &out
}

// contents returns a redacted copy of cs, or nil when nothing changed.
func (r walker) contents(cs []mcp.Content) []mcp.Content { return core.Items(cs, r.content) }

func (r walker) content(c mcp.Content) (mcp.Content, bool) {
	// Each kind is redacted by value and boxed again only when it changed,
	// so an untouched item costs no allocation and the caller's item, value
	// or pointer, is never modified.
	switch v := c.(type) {
	case mcp.TextContent:
		return changed(r.text(v))
	case *mcp.TextContent:
		if v != nil {
			return changed(r.text(*v))
		}
	case mcp.ImageContent:
		return changed(r.image(v))
	case *mcp.ImageContent:
		if v != nil {
			return changed(r.image(*v))
		}
	case mcp.AudioContent:
		return changed(r.audio(v))
	case *mcp.AudioContent:
		if v != nil {
			return changed(r.audio(*v))
		}
	case mcp.ResourceLink:
		return changed(r.link(v))
	case *mcp.ResourceLink:
		if v != nil {
			return changed(r.link(*v))
		}
	case mcp.EmbeddedResource:
		return changed(r.embedded(v))
	case *mcp.EmbeddedResource:
		if v != nil {
			return changed(r.embedded(*v))
		}
	default:
		return r.otherContent(c)
	}
	return c, false
}

func changed[T mcp.Content](v T, ok bool) (mcp.Content, bool) {
	if !ok {
		return nil, false
	}
	return v, true
}

// Each kind is read into core/redact's view of an item, redacted by its
// one walk (core.Redactor.Item) and written back only when it changed.

func (r walker) text(v mcp.TextContent) (mcp.TextContent, bool) {
	it, ok := r.Item(core.Item{Kind: core.TextItem, Text: v.Text, Meta: fields(v.Meta)})
	if ok {
		v.Text, v.Meta = it.Text, withFields(v.Meta, it.Meta)
	}
	return v, ok
}

func (r walker) image(v mcp.ImageContent) (mcp.ImageContent, bool) {
	it, ok := r.Item(core.Item{Kind: core.BinaryItem, Meta: fields(v.Meta)})
	if ok {
		v.Meta = withFields(v.Meta, it.Meta)
	}
	return v, ok
}

func (r walker) audio(v mcp.AudioContent) (mcp.AudioContent, bool) {
	it, ok := r.Item(core.Item{Kind: core.BinaryItem, Meta: fields(v.Meta)})
	if ok {
		v.Meta = withFields(v.Meta, it.Meta)
	}
	return v, ok
}

func (r walker) link(v mcp.ResourceLink) (mcp.ResourceLink, bool) {
	it, ok := r.Item(core.Item{Kind: core.LinkItem, URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, Meta: fields(v.Meta)})
	if ok {
		v.URI, v.Name, v.Title, v.Description, v.Meta = it.URI, it.Name, it.Title, it.Description, withFields(v.Meta, it.Meta)
	}
	return v, ok
}

func (r walker) embedded(v mcp.EmbeddedResource) (mcp.EmbeddedResource, bool) {
	it := core.Item{Kind: core.ResourceItem, Meta: fields(v.Meta)}
	switch x := v.Resource.(type) {
	case mcp.TextResourceContents:
		it.URI, it.Text, it.ResourceMeta = x.URI, x.Text, x.Meta
	case *mcp.TextResourceContents:
		if x != nil {
			it.URI, it.Text, it.ResourceMeta = x.URI, x.Text, x.Meta
		}
	case mcp.BlobResourceContents:
		it.URI, it.ResourceMeta = x.URI, x.Meta
	case *mcp.BlobResourceContents:
		if x != nil {
			it.URI, it.ResourceMeta = x.URI, x.Meta
		}
	}
	out, ok := r.Item(it)
	if !ok {
		return v, false
	}
	v.Meta = withFields(v.Meta, out.Meta)
	switch x := v.Resource.(type) {
	case mcp.TextResourceContents:
		x.URI, x.Text, x.Meta = out.URI, out.Text, metaMap(out.ResourceMeta)
		v.Resource = x
	case *mcp.TextResourceContents:
		if x != nil {
			y := *x
			y.URI, y.Text, y.Meta = out.URI, out.Text, metaMap(out.ResourceMeta)
			v.Resource = y
		}
	case mcp.BlobResourceContents:
		x.URI, x.Meta = out.URI, metaMap(out.ResourceMeta)
		v.Resource = x
	case *mcp.BlobResourceContents:
		if x != nil {
			y := *x
			y.URI, y.Meta = out.URI, metaMap(out.ResourceMeta)
			v.Resource = y
		}
	}
	return v, true
}

// metaMap converts a redacted _meta map back; a _meta that could not be
// kept as a map (it was masked whole) is dropped rather than sent.
func metaMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// fields is a _meta's additional fields, as the walk reads them; the
// progress token is the client's own.
func fields(m *mcp.Meta) any {
	if m == nil {
		return nil
	}
	return m.AdditionalFields
}

// withFields is a copy of m with the fields the walk returned (called
// once an item changed; m itself is never modified).
func withFields(m *mcp.Meta, v any) *mcp.Meta {
	if m == nil {
		return nil
	}
	cp := *m
	cp.AdditionalFields = metaMap(v)
	return &cp
}

// meta redacts the additional fields of a _meta.
func (r walker) meta(m *mcp.Meta) (*mcp.Meta, bool) {
	if m == nil {
		return nil, false
	}
	fields, changed := r.Value(m.AdditionalFields)
	if !changed {
		return m, false
	}
	cp := *m
	cp.AdditionalFields = metaMap(fields)
	return &cp, true
}

// otherContent redacts a content kind this package does not know (sampling
// tool use and tool results, future kinds) through its JSON encoding.
func (r walker) otherContent(c mcp.Content) (mcp.Content, bool) {
	b, err := json.Marshal(c)
	if err != nil {
		return c, false
	}
	it, ok := r.Item(core.Item{JSON: string(b)})
	if !ok {
		return c, false
	}
	return rawContent{raw: json.RawMessage(it.JSON)}, true
}

// rawContent is content sent as already-encoded JSON. It embeds a content
// type only to be an mcp.Content; its encoding is raw.
type rawContent struct {
	mcp.TextContent
	raw json.RawMessage
}

// MarshalJSON returns the redacted encoding.
func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }
