package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/mcpguard/mcpguard/core/envelope"
	"github.com/mcpguard/mcpguard/core/redact"
	"github.com/mcpguard/mcpguard/core/wire"
)

// This file redacts a tool result on the wire: each content item and the
// _meta in core/redact's walk (the members it reads and writes back), and
// the toolFailure member only the proxy's envelope writes.

// withoutFailureMeta returns a result without the toolFailure member of
// its _meta: only the proxy's envelope writes one (core/pipeline's
// policy for every outcome that is not rendered as an envelope).
func withoutFailureMeta(result []byte) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(top["_meta"], &meta) != nil {
		return result
	}
	if _, ok := meta[envelope.ToolFailureMetaKey]; !ok {
		return result
	}
	delete(meta, envelope.ToolFailureMetaKey)
	top["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(top)
	if err != nil {
		return result
	}
	return out
}

// redactResult redacts a tool result but for its binary content, which
// redaction would corrupt (a base64 run looks like a token), and, when
// sealed, its requestState, which it would break.
func redactResult(red *redact.Redactor, result []byte, sealed bool) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil {
		return result
	}
	var content []json.RawMessage
	_ = json.Unmarshal(top["content"], &content)
	changed := false
	for k, v := range top {
		if k == "content" || (sealed && wire.FoldsAs([]byte(k), []byte("requestState"))) { // sealed under every spelling (seal.go)
			continue
		}
		if out, ok := red.JSON(string(v)); ok && out != string(v) {
			top[k], changed = json.RawMessage(out), true
		}
	}
	for i, item := range content {
		if out := redactItem(red, item); !bytes.Equal(out, item) {
			content[i], changed = out, true
		}
	}
	if !changed {
		return result
	}
	if content != nil {
		top["content"], _ = json.Marshal(content)
	}
	out, err := json.Marshal(top)
	if err != nil {
		return result
	}
	return out
}

// redactItem redacts one content item, read into core/redact's view of
// an item, with the walk the fronts use: its binary members (an image's
// or audio's data, a resource's blob) are not in the view, and reach the
// client as the upstream sent them.
func redactItem(red *redact.Redactor, item []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(item, &m) != nil {
		out, _ := red.JSON(string(item))
		return []byte(out)
	}
	var kind string
	_ = json.Unmarshal(m["type"], &kind)
	var res map[string]json.RawMessage
	it := redact.Item{Kind: itemKinds[kind]}
	switch it.Kind {
	case redact.OtherItem:
		it.JSON = string(item)
	case redact.ResourceItem:
		if json.Unmarshal(m["resource"], &res) != nil || res == nil {
			it = redact.Item{JSON: string(item)} // not a resource the walk can read: as JSON
			break
		}
		readMembers(res, []string{"uri", "text"}, &it.URI, &it.Text)
		it.ResourceMeta = rawOrNil(res["_meta"])
	default:
		readMembers(m, []string{"text", "uri", "name", "title", "description"}, &it.Text, &it.URI, &it.Name, &it.Title, &it.Description)
	}
	if it.Kind != redact.OtherItem {
		it.Meta = rawOrNil(m["_meta"])
	}
	out, changed := red.Item(it)
	switch {
	case !changed:
		return item
	case out.Kind == redact.OtherItem:
		return []byte(out.JSON)
	case out.Kind == redact.ResourceItem:
		writeMembers(res, map[string]string{"uri": out.URI, "text": out.Text})
		setMeta(res, out.ResourceMeta)
		m["resource"], _ = json.Marshal(res)
	default:
		writeMembers(m, map[string]string{"text": out.Text, "uri": out.URI, "name": out.Name, "title": out.Title,
			"description": out.Description})
	}
	setMeta(m, out.Meta)
	b, err := json.Marshal(m)
	if err != nil {
		return item
	}
	return b
}

// itemKinds are the content types of the MCP schema, as core/redact's
// walk reads them; any other is redacted as JSON.
var itemKinds = map[string]redact.Kind{"text": redact.TextItem, "image": redact.BinaryItem, "audio": redact.BinaryItem,
	"resource_link": redact.LinkItem, "resource": redact.ResourceItem}

// readMembers reads the string members names of m into dst, in order.
func readMembers(m map[string]json.RawMessage, names []string, dst ...*string) {
	for i, p := range dst {
		_ = json.Unmarshal(m[names[i]], p)
	}
}

// writeMembers writes back the string members of m that the walk changed
// (only those m has).
func writeMembers(m map[string]json.RawMessage, values map[string]string) {
	for name, v := range values {
		var was string
		if raw, ok := m[name]; ok && json.Unmarshal(raw, &was) == nil && was != v {
			m[name], _ = json.Marshal(v)
		}
	}
}

// setMeta writes a redacted _meta back into m: dropped when the walk
// masked it whole (it is no object any more).
func setMeta(m map[string]json.RawMessage, meta any) {
	switch v := meta.(type) {
	case json.RawMessage:
		m["_meta"] = v
	case nil:
	default:
		delete(m, "_meta")
	}
}

// rawOrNil is raw, or nil (not a nil json.RawMessage) when there is none.
func rawOrNil(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	return raw
}
