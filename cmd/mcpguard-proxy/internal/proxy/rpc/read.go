package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/mcpguard/mcpguard/core/wire"
)

// This file is the strict reader, on jsontext (see the package
// documentation).

// Span is a JSON value kept as the bytes it was read from, without a
// copy: valid only as long as the message it came from.
type Span []byte

// Message is a JSON-RPC message as the proxy read it: the members routing
// needs, as the bytes they were read from.
type Message struct {
	ID     Span
	Method string
	Params Span
	Result Span
	Error  Span
	IDAt   int // the offset of ID in the message, for [WithID]
	// Quick says the quick reader read it (quick.go), and Call is what it
	// read of a tools/call's params.
	Quick bool
	Call  QuickCall
}

// Formatted reports whether m's params are as jsontext formats them.
func (m *Message) Formatted() bool { return m.Quick && m.Call.Plain }

// IsRequest reports whether m is a request: a method and an id.
func (m *Message) IsRequest() bool { return m.Method != "" && HasID(m.ID) }

// IsResponse reports whether m is a response: an id and no method.
func (m *Message) IsResponse() bool { return m.Method == "" && HasID(m.ID) }

// HasID reports whether id is one: present and not null.
func HasID(id Span) bool { return len(id) > 0 && !bytes.Equal(id, []byte("null")) }

// errNotObject is the error of a message that is not one JSON object, in
// UTF-8, with a string method if any.
var errNotObject = errors.New("not a JSON object")

// Ambiguity is the error of a client message that readers may read
// differently: what makes it so, in the proxy's own words (never the
// client's text).
type Ambiguity struct{ What string }

// Error returns what makes the message ambiguous.
func (a *Ambiguity) Error() string { return a.What }

// IsAmbiguity reports an *Ambiguity; a function of its own, so that only a
// refused message pays for the target errors.As needs.
func IsAmbiguity(err error) bool {
	var a *Ambiguity
	return errors.As(err, &a)
}

// headNames are the members of a message the proxy reads, and callNames
// those of a tools/call's params: a client must write them as MCP does.
var (
	headNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	callNames = []string{"name", "arguments", "_meta", "requestState", "inputResponses"}
)

// reader reads one message; pooled, since jsontext's decoder keeps a
// buffer and a stack.
type reader struct {
	r     bytes.Reader
	d     *jsontext.Decoder
	b     []byte
	names [][]byte // the names of the objects being read, innermost last
	// looseArgs reads params.arguments without the check that no two
	// names fold alike (see read); top is the top-level member being read.
	looseArgs bool
	top       []byte
}

var readers = sync.Pool{New: func() any {
	rd := &reader{}
	rd.d = jsontext.NewDecoder(&rd.r)
	return rd
}}

// lenient reads the server's messages: the client reads those, and the
// proxy only routes them.
var (
	strictOpts  = []jsontext.Options{jsontext.AllowDuplicateNames(true)} // duplicates are found below, as ambiguities
	lenientOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
)

// ReadClient reads a message from the client: one every reader reads
// alike, or an error (errNotObject, or an *ambiguity).
func ReadClient(b []byte) (m Message, err error) {
	if quickReadInto(b, true, &m) {
		return m, nil
	}
	return read(b, true)
}

// Parse reads a message from the server, or one the proxy wrote: any
// valid JSON object, the last of duplicate members winning.
func Parse(b []byte) (m Message, err error) {
	if quickReadInto(b, false, &m) {
		return m, nil
	}
	return read(b, false)
}

func read(b []byte, strict bool) (m Message, err error) {
	err = Walk(b, strict, func(name []byte, v Span, at int) error { return m.set(name, v, at, strict) })
	if strict && err != nil && IsAmbiguity(err) {
		// A tools/call whose only ambiguity is in its arguments is
		// admitted: the guard refuses it as a validation_error naming the
		// members (declared.go), as both SDK fronts do, before the
		// upstream sees it.
		var call Message
		if walkWith(b, strict, true, func(name []byte, v Span, at int) error { return call.set(name, v, at, strict) }) == nil && call.Method == "tools/call" {
			m, err = call, nil
		}
	}
	if err == nil && strict && m.Method == "tools/call" {
		err = namesAsSpelled(m.Params, callNames, "params")
	}
	return m, err
}

// Walk reads b, one JSON object, calling visit for each top-level member.
func Walk(b []byte, strict bool, visit func(name []byte, v Span, at int) error) error {
	return walkWith(b, strict, false, visit)
}

// walkWith is walk; with looseArgs, params.arguments may hold names that
// fold alike.
func walkWith(b []byte, strict, looseArgs bool, visit func(name []byte, v Span, at int) error) error {
	rd := readers.Get().(*reader)
	defer func() { rd.b, rd.top, rd.looseArgs = nil, nil, false; rd.r.Reset(nil); readers.Put(rd) }()
	rd.b, rd.looseArgs = b, looseArgs
	rd.r.Reset(b)
	if strict {
		rd.d.Reset(&rd.r, strictOpts...)
	} else {
		rd.d.Reset(&rd.r, lenientOpts...)
	}
	if rd.d.PeekKind() != '{' {
		return errNotObject
	}
	if _, err := rd.d.ReadToken(); err != nil {
		return errNotObject
	}
	if err := rd.members(strict, 0, visit); err != nil {
		return err
	}
	if _, err := rd.d.ReadToken(); !errors.Is(err, io.EOF) {
		return errNotObject // a second value after the object
	}
	return nil
}

// SoleID is the id of a message the proxy refused, when it has one
// member that folds to "id", written so; nil otherwise.
func SoleID(b []byte) []byte {
	var id []byte
	n := 0
	_ = Walk(b, false, func(name []byte, v Span, _ int) error {
		if wire.FoldsAs(name, []byte("id")) {
			n++
			if string(name) == "id" {
				id = v
			}
		}
		return nil
	})
	if n != 1 {
		return nil
	}
	return id
}

// set notes a top-level member.
func (m *Message) set(name []byte, v Span, at int, strict bool) error {
	switch string(name) {
	case "id":
		m.ID, m.IDAt = v, at
	case "method":
		if len(v) == 0 || v[0] != '"' {
			return errNotObject
		}
		s, ok := Unquote(v)
		if !ok {
			return errNotObject
		}
		m.Method = s
	case "params":
		m.Params = v
	case "result":
		m.Result = v
	case "error":
		m.Error = v
	default:
		if strict && spelledOtherwise(name, headNames) {
			return &Ambiguity{"the member " + quoteName(name, headNames) + " is written in another case than MCP's"}
		}
	}
	return nil
}

// members reads an object's members after its '{' and its '}', checking
// that no two names fold alike. visit, when not nil, sees each member's
// name and value as they were read, and the value's offset.
func (rd *reader) members(strict bool, depth int, visit func(name []byte, v Span, at int) error) error {
	base := len(rd.names) // this object's names are rd.names[base:]
	defer func() { rd.names = rd.names[:base] }()
	var many map[string]bool // past manyNames names: by their fold
	for rd.d.PeekKind() != '}' {
		raw, err := rd.d.ReadValue()
		if err != nil {
			return errNotObject
		}
		end := int(rd.d.InputOffset())
		name := unquoteName(rd.b[end-len(raw) : end]) // in b, which later reads leave alone
		if strict && rd.repeats(base, name, &many) {
			return &Ambiguity{"an object repeats a member, or writes its name in another case, which servers read differently"}
		}
		start := end
		if depth == 0 {
			rd.top = name
		}
		loose := rd.looseArgs && depth == 1 && string(rd.top) == "params" && string(name) == "arguments"
		if err := rd.value(strict && !loose, depth+1); err != nil {
			return err
		}
		if visit != nil {
			at := start + bytes.IndexFunc(rd.b[start:], func(r rune) bool { return r != ':' && r != ' ' && r != '\t' && r != '\n' && r != '\r' })
			if err := visit(name, rd.b[at:rd.d.InputOffset()], at); err != nil {
				return err
			}
		}
	}
	if _, err := rd.d.ReadToken(); err != nil {
		return errNotObject
	}
	return nil
}

// manyNames is how many names of an object are compared pairwise; past
// it, by a map of their folds.
const manyNames = 16

// repeats reports whether name folds as a name of the object whose names
// start at rd.names[base] does, and notes it.
func (rd *reader) repeats(base int, name []byte, many *map[string]bool) bool {
	if *many != nil {
		f := wire.Fold(string(name))
		if (*many)[f] {
			return true
		}
		(*many)[f] = true
		return false
	}
	for _, n := range rd.names[base:] {
		if wire.FoldsAs(n, name) {
			return true
		}
	}
	rd.names = append(rd.names, name)
	if len(rd.names)-base > manyNames {
		*many = make(map[string]bool, 2*manyNames)
		for _, n := range rd.names[base:] {
			(*many)[wire.Fold(string(n))] = true
		}
	}
	return false
}

// value reads one value, descending into objects and arrays to compare
// their names when strict; else the decoder reads it whole, which is
// faster (it checks the value's syntax, and UTF-8 unless lenient).
func (rd *reader) value(strict bool, depth int) error {
	kind := rd.d.PeekKind()
	if !strict {
		kind = 0
	}
	switch kind {
	case '{':
		if _, err := rd.d.ReadToken(); err != nil {
			return errNotObject
		}
		return rd.members(strict, depth, nil)
	case '[':
		if _, err := rd.d.ReadToken(); err != nil {
			return errNotObject
		}
		for rd.d.PeekKind() != ']' {
			if err := rd.value(strict, depth+1); err != nil {
				return err
			}
		}
		if _, err := rd.d.ReadToken(); err != nil {
			return errNotObject
		}
		return nil
	}
	if _, err := rd.d.ReadValue(); err != nil {
		return errNotObject
	}
	return nil
}

// unquoteName is a name read as a raw JSON string, unescaped.
func unquoteName(raw []byte) []byte {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return inner
	}
	return []byte(s)
}

// Unquote decodes a JSON string value (a known method name without
// allocating); ok is false when raw is not one.
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return method(inner), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// method is the string b holds: one of methods without allocating.
func method(b []byte) string {
	for _, m := range methods {
		if string(b) == m {
			return m
		}
	}
	return string(b)
}

// methods are the method names unquote returns without allocating.
var methods = []string{
	"initialize", "ping", "tools/call", "tools/list", "resources/list", "resources/read",
	"resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/list",
	"prompts/get", "completion/complete", "logging/setLevel", "notifications/initialized",
	"notifications/cancelled", "notifications/progress", "notifications/message",
	"notifications/roots/list_changed",
}

// spelledOtherwise reports whether name folds to one of names without
// being it.
func spelledOtherwise(name []byte, names []string) bool {
	for _, n := range names {
		if string(name) != n && wire.FoldsAs(name, []byte(n)) {
			return true
		}
	}
	return false
}

// quoteName is the one of names that name folds to, quoted: the proxy's
// words, never the client's.
func quoteName(name []byte, names []string) string {
	for _, n := range names {
		if wire.FoldsAs(name, []byte(n)) {
			return `"` + n + `"`
		}
	}
	return "?"
}

// namesAsSpelled checks that obj's names that fold to one of names are
// written as it; obj was read strictly already.
func namesAsSpelled(obj []byte, names []string, in string) error {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	return Walk(obj, false, func(name []byte, _ Span, _ int) error {
		if spelledOtherwise(name, names) {
			return &Ambiguity{"the member " + quoteName(name, names) + " in " + in + " is written in another case than MCP's"}
		}
		return nil
	})
}

// OwnCall is the proxy's own encoding of a tools/call request with the
// id id: params formatted by jsontext (no whitespace, each string in its
// shortest form), the head written by the proxy. formatted says params
// are so already (QuickCall.plain), which spares the formatting.
func OwnCall(id []byte, params Span, formatted bool) []byte {
	p := jsontext.Value(params)
	if len(p) == 0 {
		p = jsontext.Value("{}")
	} else if !formatted {
		p = jsontext.Value(bytes.Clone(params))
		if p.Format() != nil {
			p = jsontext.Value(params)
		}
	}
	return AppendCall(make([]byte, 0, len(p)+len(id)+64), id, p)
}

// AppendCall appends the tools/call request with the id id and params,
// which are formatted, to b.
func AppendCall(b, id, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":"tools/call","params":`...)
	b = append(b, params...)
	return append(b, '}')
}
