package recover

import (
	"encoding/json"
	"math"

	"github.com/mark3labs/mcp-go/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// encodable returns res as mcp-go can encode it without calling code the
// handler supplied: every value in it whose encoding could run such code
// (a MarshalJSON, a NaN, invalid raw JSON) replaced by its JSON encoding,
// in a copy. res itself comes back, without an allocation, when every
// value is plain (text, numbers, decoded JSON, raw JSON) or mcpguard's own
// envelope. A panic in a value's MarshalJSON propagates to the caller,
// which recovers it; an encoding error is returned.
//
// Positions: structuredContent (encoded into RawStructuredContent, which
// mcp-go sends instead; one the handler set is checked), the result's
// _meta and progress token, and each content item: its _meta and
// annotations, an embedded resource's contents and their _meta. Content
// types mcp-go does not define, sampling's tool use and tool result items
// included, are encoded whole. Input requests (SEP-2322) are mcp-go's own
// types: they are encoded once to check them, and left in place.
func encodable(res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if res == nil || plainResult(res) {
		return res, nil
	}
	structured, sChanged, err := encodeStructured(res)
	if err != nil {
		return nil, err
	}
	meta, mChanged, err := encodeMeta(res.Meta)
	if err != nil {
		return nil, err
	}
	if len(res.InputRequests) > 0 {
		if _, err := json.Marshal(res.InputRequests); err != nil {
			return nil, err
		}
	}
	var cerr error
	content := redact.Items(res.Content, func(c mcp.Content) (mcp.Content, bool) {
		if cerr != nil {
			return c, false
		}
		out, changed, err := encodeContent(c)
		cerr = err
		return out, changed
	})
	if cerr != nil {
		return nil, cerr
	}
	if !sChanged && !mChanged && content == nil {
		return res, nil
	}
	out := *res
	if sChanged {
		out.RawStructuredContent = structured
	}
	if mChanged {
		out.Meta = meta
	}
	if content != nil {
		out.Content = content
	}
	return &out, nil
}

// encodeStructured returns the encoding of the structured content, and
// true, when it is neither plain nor the envelope. It goes in
// RawStructuredContent, which mcp-go sends in its place, so that layers
// outside (a success hint reading its rows) still find the typed value.
func encodeStructured(res *mcp.CallToolResult) (json.RawMessage, bool, error) {
	if len(res.RawStructuredContent) > 0 {
		return nil, false, safe.ValidRaw(res.RawStructuredContent)
	}
	switch v := res.StructuredContent.(type) {
	case *core.Envelope:
		return nil, false, nil // mcpguard's own: strings, numbers, booleans
	default:
		if safe.PlainJSON(v) {
			return nil, false, nil
		}
		raw, err := safe.RawJSON(v)
		return raw, err == nil, err
	}
}

// encodeMeta returns a copy of m with its values encoded, and true, when
// one of them is not plain.
func encodeMeta(m *mcp.Meta) (*mcp.Meta, bool, error) {
	if m == nil {
		return nil, false, nil
	}
	fields, changed, err := safe.RawValues(m.AdditionalFields)
	if err != nil {
		return nil, false, err
	}
	token := m.ProgressToken
	if !safe.PlainJSON(token) {
		raw, err := safe.RawJSON(token)
		if err != nil {
			return nil, false, err
		}
		token, changed = raw, true
	}
	if !changed {
		return m, false, nil
	}
	return &mcp.Meta{ProgressToken: token, AdditionalFields: fields}, true, nil
}

// plainResult reports, without allocating, whether mcp-go encodes res as
// it is: the common case, checked before anything is copied.
func plainResult(res *mcp.CallToolResult) bool {
	// mcp-go sends RawStructuredContent when it is not empty.
	if len(res.RawStructuredContent) != 0 && safe.ValidRaw(res.RawStructuredContent) != nil {
		return false
	}
	if sc := res.StructuredContent; sc != nil {
		if _, ours := sc.(*core.Envelope); !ours && !safe.PlainJSON(sc) {
			return false
		}
	}
	if !plainParts(mcp.Annotated{}, res.Meta) {
		return false
	}
	if len(res.InputRequests) != 0 { // mcp-go's own types, checked by encoding them
		return false
	}
	for _, c := range res.Content {
		if !plainContent(c) {
			return false
		}
	}
	return true
}

// plainContent reports whether mcp-go encodes a content item as it is:
// one of its own types, value or pointer, with plain parts.
func plainContent(c mcp.Content) bool {
	switch v := c.(type) {
	case nil:
		return true
	case mcp.TextContent:
		return plainParts(v.Annotated, v.Meta)
	case *mcp.TextContent:
		return v == nil || plainParts(v.Annotated, v.Meta)
	case mcp.ImageContent:
		return plainParts(v.Annotated, v.Meta)
	case *mcp.ImageContent:
		return v == nil || plainParts(v.Annotated, v.Meta)
	case mcp.AudioContent:
		return plainParts(v.Annotated, v.Meta)
	case *mcp.AudioContent:
		return v == nil || plainParts(v.Annotated, v.Meta)
	case mcp.ResourceLink:
		return plainParts(v.Annotated, v.Meta)
	case *mcp.ResourceLink:
		return v == nil || plainParts(v.Annotated, v.Meta)
	case mcp.EmbeddedResource:
		return plainParts(v.Annotated, v.Meta) && resourcePlain(v.Resource)
	case *mcp.EmbeddedResource:
		return v == nil || plainParts(v.Annotated, v.Meta) && resourcePlain(v.Resource)
	}
	return false
}

// encodeContent returns c, or a copy of it whose user-typed values are
// encoded, and whether it made one. Value and pointer items alike; content
// types mcp-go does not define are encoded whole.
func encodeContent(c mcp.Content) (mcp.Content, bool, error) {
	if plainContent(c) {
		return c, false, nil
	}
	var err error
	switch v := c.(type) {
	case mcp.TextContent:
		err = fixParts(&v.Annotated, &v.Meta)
		c = v
	case *mcp.TextContent:
		cp := *v
		err = fixParts(&cp.Annotated, &cp.Meta)
		c = &cp
	case mcp.ImageContent:
		err = fixParts(&v.Annotated, &v.Meta)
		c = v
	case *mcp.ImageContent:
		cp := *v
		err = fixParts(&cp.Annotated, &cp.Meta)
		c = &cp
	case mcp.AudioContent:
		err = fixParts(&v.Annotated, &v.Meta)
		c = v
	case *mcp.AudioContent:
		cp := *v
		err = fixParts(&cp.Annotated, &cp.Meta)
		c = &cp
	case mcp.ResourceLink:
		err = fixParts(&v.Annotated, &v.Meta)
		c = v
	case *mcp.ResourceLink:
		cp := *v
		err = fixParts(&cp.Annotated, &cp.Meta)
		c = &cp
	case mcp.EmbeddedResource:
		err = fixEmbedded(&v)
		c = v
	case *mcp.EmbeddedResource:
		cp := *v
		err = fixEmbedded(&cp)
		c = &cp
	default:
		var raw []byte
		raw, err = json.Marshal(c)
		c = rawContent{Content: c, raw: raw}
	}
	return c, err == nil, err
}

// plainParts reports whether annotations and _meta encode as they are.
func plainParts(a mcp.Annotated, m *mcp.Meta) bool {
	if a.Annotations == nil && m == nil {
		return true // text as mcp.NewToolResultText builds it
	}
	return annotationsPlain(a) && (m == nil || safe.PlainJSON(m.ProgressToken) && safe.PlainJSON(m.AdditionalFields))
}

// fixParts encodes the _meta at m in place (a and m point into a copy of
// the item); annotations that cannot be encoded are an error.
func fixParts(a *mcp.Annotated, m **mcp.Meta) error {
	if !annotationsPlain(*a) {
		_, err := json.Marshal(a.Annotations) // encoding/json's own error
		return err
	}
	meta, _, err := encodeMeta(*m)
	*m = meta
	return err
}

// annotationsPlain reports whether a encodes: its priority is a number.
func annotationsPlain(a mcp.Annotated) bool {
	p := a.Annotations
	return p == nil || p.Priority == nil || !math.IsNaN(*p.Priority) && !math.IsInf(*p.Priority, 0)
}

// fixEmbedded encodes an embedded resource's parts in v, a copy.
func fixEmbedded(v *mcp.EmbeddedResource) error {
	if err := fixParts(&v.Annotated, &v.Meta); err != nil {
		return err
	}
	rc, err := encodeResource(v.Resource)
	v.Resource = rc
	return err
}

// resourcePlain reports whether resource contents encode as they are.
func resourcePlain(rc mcp.ResourceContents) bool {
	switch v := rc.(type) {
	case nil:
		return true
	case mcp.TextResourceContents:
		return safe.PlainJSON(v.Meta)
	case *mcp.TextResourceContents:
		return v == nil || safe.PlainJSON(v.Meta)
	case mcp.BlobResourceContents:
		return safe.PlainJSON(v.Meta)
	case *mcp.BlobResourceContents:
		return v == nil || safe.PlainJSON(v.Meta)
	}
	return false
}

// encodeResource returns resource contents that are not plain with their
// _meta encoded, in a copy; contents of a type mcp-go does not define are
// encoded whole.
func encodeResource(rc mcp.ResourceContents) (mcp.ResourceContents, error) {
	var err error
	switch v := rc.(type) {
	case mcp.TextResourceContents:
		v.Meta, _, err = safe.RawValues(v.Meta)
		return v, err
	case *mcp.TextResourceContents:
		cp := *v
		cp.Meta, _, err = safe.RawValues(v.Meta)
		return &cp, err
	case mcp.BlobResourceContents:
		v.Meta, _, err = safe.RawValues(v.Meta)
		return v, err
	case *mcp.BlobResourceContents:
		cp := *v
		cp.Meta, _, err = safe.RawValues(v.Meta)
		return &cp, err
	}
	raw, err := json.Marshal(rc)
	return rawResource{ResourceContents: rc, raw: raw}, err
}

// rawContent is a content item sent as its encoding; it embeds the item it
// replaces only to be an mcp.Content.
type rawContent struct {
	mcp.Content
	raw json.RawMessage
}

// MarshalJSON returns the encoding.
func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }

// rawResource is resource contents sent as their encoding.
type rawResource struct {
	mcp.ResourceContents
	raw json.RawMessage
}

// MarshalJSON returns the encoding.
func (r rawResource) MarshalJSON() ([]byte, error) { return r.raw, nil }
