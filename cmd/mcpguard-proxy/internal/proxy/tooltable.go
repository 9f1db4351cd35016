package proxy

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// toolTable is the tools the server listed, by name. Every tool call
// reads it, tools/list results (rare) write it: a reader takes no lock
// and makes no allocation, as sync.Map's did (it hashes an interface), on
// the path of every call. A write copies the map.
//
// When the server says its tools changed (notifications/tools/list_changed)
// the table forgets them (forget): the next call is checked only after the
// proxy lists them again, and a listing asked for before the change is
// not learned (its generation is past).
type toolTable struct {
	mu sync.Mutex // held by writers
	m  atomic.Pointer[map[string]*tool]
	// complete: a last page of tools/list (no nextCursor) was read, so a
	// tool not in the table does not exist.
	complete atomic.Bool
	// gen counts the times the table forgot its tools.
	gen atomic.Uint64
	// lists counts the proxy's own tools/list requests since it last forgot.
	lists atomic.Int32
}

// forget forgets the tools, after the server said they changed.
func (t *toolTable) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen.Add(1)
	t.m.Store(nil)
	t.complete.Store(false)
	t.lists.Store(0)
}

// get returns the tool listed under name.
func (t *toolTable) get(name string) *tool {
	if m := t.m.Load(); m != nil {
		return (*m)[name]
	}
	return nil
}

// learned reports whether a tools/list result was read (Guard.learn):
// what listedCh says, in a load.
func (t *toolTable) learned() bool { return t.m.Load() != nil }

// getBytes is get for a name not yet a string: no allocation.
func (t *toolTable) getBytes(name []byte) *tool {
	if m := t.m.Load(); m != nil {
		return (*m)[string(name)]
	}
	return nil
}

// add lists tools, each replacing any under its name, from a page of
// tools/list asked for in the generation gen (last: the last page), unless
// the table forgot its tools since. It reports whether it did.
func (t *toolTable) add(gen uint64, tools []*tool, last bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen.Load() != gen {
		return false
	}
	var old map[string]*tool
	if p := t.m.Load(); p != nil {
		old = *p
	}
	m := make(map[string]*tool, len(old)+len(tools))
	for k, v := range old {
		m[k] = v
	}
	for _, x := range tools {
		m[x.name] = x
	}
	t.m.Store(&m)
	if last {
		t.complete.Store(true)
	}
	return true
}

// names returns up to max+1 of the tools' names, sorted: those the
// client is listed (not those the pins hold back, pin.go).
func (t *toolTable) names(max int) []string {
	var names []string
	if m := t.m.Load(); m != nil {
		for k, v := range *m {
			if v.held() {
				continue
			}
			names = append(names, k)
			if len(names) > max {
				break
			}
		}
	}
	slices.Sort(names)
	return names
}

// sessionTables are the HTTP proxy's tool tables, one for each caller,
// by its name (limit.Caller's Name: its MCP session, else its
// credentials): a server may list each session other tools, or other
// schemas (mcp-go's AddSessionTool), and a stateless server each
// credential (mcp-go's WithToolFilter), so a call is checked against the
// tools its own caller was listed, never another's. A session's table is
// forgotten when the session ends (the client's DELETE, the upstream's 404
// for it) and, past maxToolSessions, the one used least recently first:
// its next call lists the tools again. Requests with neither a session
// nor credentials share one table, as the server cannot tell them apart
// either.
type sessionTables struct {
	mu sync.Mutex
	m  map[string]*sessionTable
}

// sessionTable is one session's tools and when a call last read them.
type sessionTable struct {
	toolTable
	used atomic.Int64 // unix nanoseconds
}

// maxToolSessions bounds the sessions whose tools the HTTP proxy keeps.
const maxToolSessions = 4096

// of returns the table of the caller named caller, made when there is
// none.
func (s *sessionTables) of(caller string) *toolTable {
	now := time.Now().UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[caller]
	if !ok {
		if s.m == nil {
			s.m = map[string]*sessionTable{}
		}
		if len(s.m) >= maxToolSessions {
			s.evict()
		}
		t = new(sessionTable)
		s.m[caller] = t
	}
	t.used.Store(now)
	return &t.toolTable
}

// evict forgets the table used least recently. s.mu is held.
func (s *sessionTables) evict() {
	oldest, at := "", int64(0)
	for k, t := range s.m {
		if u := t.used.Load(); oldest == "" || u < at {
			oldest, at = k, u
		}
	}
	delete(s.m, oldest)
}

// lookup returns the table of the caller named caller, nil when there is
// none.
func (s *sessionTables) lookup(caller string) *toolTable {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.m[caller]; ok {
		return &t.toolTable
	}
	return nil
}

// drop forgets the table of the caller named caller, whose session
// ended.
func (s *sessionTables) drop(caller string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, caller)
}
