package redact

import "encoding/json"

// Kind is what a content item of a tool result is, as [Redactor.Item]
// reads it.
type Kind uint8

// The kinds of content item.
const (
	// OtherItem is a kind the walk does not know (sampling's tool use and
	// tool result items, later kinds): its JSON is redacted.
	OtherItem Kind = iota
	// TextItem is a text item.
	TextItem
	// BinaryItem is an image or audio item: its data is left alone.
	BinaryItem
	// LinkItem is a resource link.
	LinkItem
	// ResourceItem is an embedded resource, of text or of a blob.
	ResourceItem
)

// Item is one content item of a tool result as every consumer reads it
// for [Redactor.Item]: the mcp-go and go-sdk fronts from their SDK's
// content types, mcpguard-proxy from the wire's JSON. It holds the
// positions that carry text; binary data (an image's or audio's data, a
// resource's blob) is not in it, so the walk cannot change it and it
// reaches the client byte for byte: rewriting base64 would corrupt it,
// and a long base64 run looks like a token.
type Item struct {
	Kind Kind
	// Text is a text item's text, or an embedded resource's.
	Text string
	// URI, Name, Title and Description are a resource link's; URI is also
	// an embedded resource's.
	URI, Name, Title, Description string
	// Meta is the item's _meta and ResourceMeta an embedded resource's, as
	// decoded JSON or a json.RawMessage; nil for none. A _meta masked
	// whole comes back as a string, which a consumer drops.
	Meta, ResourceMeta any
	// JSON is the encoding of an OtherItem.
	JSON string
}

// Item returns it with its text redacted, position by position, the one
// walk of a result's content for every consumer: a text item's and an
// embedded resource's text with [Redactor.Text] (JSON text stays valid
// JSON), a link's and an embedded resource's URI, name, title and
// description with [Redactor.String], each _meta with [Redactor.Value]
// (key-aware), an unknown kind's JSON with [Redactor.JSON]. It reports
// whether anything changed, and allocates nothing when nothing did.
func (r *Redactor) Item(it Item) (Item, bool) {
	changed := false
	switch it.Kind {
	case TextItem:
		changed = r.text(&it.Text)
	case LinkItem:
		changed = r.str(&it.URI)
		changed = r.str(&it.Name) || changed
		changed = r.str(&it.Title) || changed
		changed = r.str(&it.Description) || changed
	case ResourceItem:
		changed = r.str(&it.URI)
		changed = r.text(&it.Text) || changed
		changed = r.val(&it.ResourceMeta) || changed
	case OtherItem:
		changed = r.other(&it.JSON)
	}
	changed = r.val(&it.Meta) || changed
	return it, changed
}

func (r *Redactor) text(p *string) bool {
	if *p == "" {
		return false
	}
	if t := r.Text(*p); t != *p {
		*p = t
		return true
	}
	return false
}

func (r *Redactor) str(p *string) bool {
	if t := r.String(*p); t != *p {
		*p = t
		return true
	}
	return false
}

func (r *Redactor) val(p *any) bool {
	v, changed := r.Value(*p)
	if changed {
		*p = v
	}
	return changed
}

// other redacts an unknown kind's JSON; one that does not encode as an
// object is redacted as text and, should that break it, replaced by a
// text item of the placeholder.
func (r *Redactor) other(p *string) bool {
	if *p == "" {
		return false
	}
	out, ok := r.JSON(*p)
	if !ok {
		out = r.String(*p)
		if !json.Valid([]byte(out)) {
			out = `{"type":"text","text":"` + Placeholder + `"}`
		}
	}
	if out == *p {
		return false
	}
	*p = out
	return true
}
