package gosdk

import (
	"encoding/json"
	"math"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	core "github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/internal/safe"
)

// encodable returns res as go-sdk can encode it without calling code the
// handler supplied: go-sdk encodes a result in its jsonrpc2 layer after
// every middleware has returned, where a MarshalJSON that panics ends the
// process and one that fails leaves the call unanswered. Every value whose
// encoding could run such code (a MarshalJSON, a NaN, invalid raw JSON) is
// replaced by its JSON encoding, in a copy; res itself comes back, without
// an allocation, when every value is plain (text, numbers, decoded JSON,
// json.RawMessage as go-sdk's typed handlers set it) or mcpguard's own
// envelope. A panic in a value's MarshalJSON propagates to the caller,
// which recovers it; an encoding error is returned.
//
// Positions: structuredContent, the result's _meta, each content item's
// _meta and annotations, an embedded resource's contents' _meta; content
// types go-sdk does not define, and sampling's tool use and tool result
// items, are encoded whole. Input requests (SEP-2322) are go-sdk's own
// types, which its encoder switches on: they are encoded once to check
// them and left in place.
func encodable(res *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if plainResult(res) {
		return res, nil
	}
	structured, sChanged, err := encodeStructured(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	meta, mChanged, err := safe.RawValues(res.Meta)
	if err != nil {
		return nil, err
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
	if len(res.InputRequests) > 0 {
		if _, err := json.Marshal(res.InputRequests); err != nil {
			return nil, err
		}
	}
	if !sChanged && !mChanged && content == nil {
		return res, nil
	}
	out := *res // keeps what GetError returns
	if sChanged {
		out.StructuredContent = structured
	}
	if mChanged {
		out.Meta = meta
	}
	if content != nil {
		out.Content = content
	}
	return &out, nil
}

// encodeStructured returns v encoded, and true, unless it is plain or the
// envelope.
func encodeStructured(v any) (any, bool, error) {
	if _, ours := v.(*core.Envelope); ours || safe.PlainJSON(v) {
		return nil, false, nil
	}
	raw, err := safe.RawJSON(v)
	return raw, err == nil, err
}

// plainResult reports, without allocating, whether go-sdk encodes res as
// it is: the common case, checked before anything is copied.
func plainResult(res *mcp.CallToolResult) bool {
	if sc := res.StructuredContent; sc != nil {
		if _, ours := sc.(*core.Envelope); !ours && !safe.PlainJSON(sc) {
			return false
		}
	}
	if len(res.Meta) > 0 && !safe.PlainJSON(map[string]any(res.Meta)) || len(res.InputRequests) > 0 {
		return false
	}
	for _, c := range res.Content {
		if !plainContent(c) {
			return false
		}
	}
	return true
}

// plainContent reports whether go-sdk encodes a content item as it is:
// one of its own types with plain parts.
func plainContent(c mcp.Content) bool {
	switch v := c.(type) {
	case nil:
		return true
	case *mcp.TextContent:
		return v == nil || plainParts(v.Annotations, v.Meta)
	case *mcp.ImageContent:
		return v == nil || plainParts(v.Annotations, v.Meta)
	case *mcp.AudioContent:
		return v == nil || plainParts(v.Annotations, v.Meta)
	case *mcp.ResourceLink:
		return v == nil || plainParts(v.Annotations, v.Meta)
	case *mcp.EmbeddedResource:
		return v == nil || plainParts(v.Annotations, v.Meta) && (v.Resource == nil || safe.PlainJSON(map[string]any(v.Resource.Meta)))
	}
	return false
}

// encodeContent returns c, or a copy of it whose user-typed values are
// encoded, and whether it made one; content types go-sdk does not define
// are encoded whole.
func encodeContent(c mcp.Content) (mcp.Content, bool, error) {
	if plainContent(c) {
		return c, false, nil
	}
	var err error
	switch v := c.(type) {
	case *mcp.TextContent:
		cp := *v
		err = fixParts(cp.Annotations, &cp.Meta)
		c = &cp
	case *mcp.ImageContent:
		cp := *v
		err = fixParts(cp.Annotations, &cp.Meta)
		c = &cp
	case *mcp.AudioContent:
		cp := *v
		err = fixParts(cp.Annotations, &cp.Meta)
		c = &cp
	case *mcp.ResourceLink:
		cp := *v
		err = fixParts(cp.Annotations, &cp.Meta)
		c = &cp
	case *mcp.EmbeddedResource:
		cp := *v
		err = fixEmbedded(&cp)
		c = &cp
	default:
		var raw []byte
		if raw, err = c.MarshalJSON(); err == nil {
			err = safe.ValidRaw(raw)
		}
		c = rawContent{Content: c, raw: raw}
	}
	return c, err == nil, err
}

// plainParts reports whether annotations and _meta encode as they are.
func plainParts(a *mcp.Annotations, m mcp.Meta) bool {
	return annotationsPlain(a) && (len(m) == 0 || safe.PlainJSON(map[string]any(m)))
}

// annotationsPlain reports whether a encodes: its priority is a number.
func annotationsPlain(a *mcp.Annotations) bool {
	return a == nil || !math.IsNaN(a.Priority) && !math.IsInf(a.Priority, 0)
}

// fixParts encodes the _meta at m, in a copy of an item; annotations that
// cannot be encoded are an error.
func fixParts(a *mcp.Annotations, m *mcp.Meta) error {
	if !annotationsPlain(a) {
		_, err := json.Marshal(a) // encoding/json's own error
		return err
	}
	meta, _, err := safe.RawValues(*m)
	*m = meta
	return err
}

// fixEmbedded encodes an embedded resource's parts in v, a copy.
func fixEmbedded(v *mcp.EmbeddedResource) error {
	if err := fixParts(v.Annotations, &v.Meta); err != nil || v.Resource == nil {
		return err
	}
	rc := *v.Resource
	v.Resource = &rc
	return fixParts(nil, &rc.Meta)
}
