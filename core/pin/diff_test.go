package pin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/core/pin"
)

func TestDiffNamesEachChangeByPointer(t *testing.T) {
	old := `{"name":"s","description":"` + strings.Repeat("a", 100) + `héllo` + strings.Repeat("z", 100) + `","inputSchema":{"properties":{"a/b":{"type":"string"},"gone":{}}},"annotations":{"readOnlyHint":true}}`
	new := `{"name":"s","description":"` + strings.Repeat("a", 100) + `hèllo` + strings.Repeat("z", 100) + `","inputSchema":{"properties":{"a/b":{"type":"integer"},"new~":{"enum":[1,2]}}},"annotations":{"readOnlyHint":false}}`
	got := pin.Diff([]byte(old), []byte(new))
	want := []string{
		`/annotations/readOnlyHint: true → false`,
		`/description: …` + strings.Repeat("a", 29) + `h[-é-]{+è+}llo` + strings.Repeat("z", 27) + `…`,
		`/inputSchema/properties/a~1b/type: [-string-]{+integer+}`,
		`/inputSchema/properties/gone: removed (was {})`,
		`/inputSchema/properties/new~0: added {"enum":[1,2]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if parts := pin.Parts(got); parts != "annotations, description, inputSchema" {
		t.Errorf("Parts = %q", parts)
	}
}

func TestDiffIsBounded(t *testing.T) {
	var o, n strings.Builder
	o.WriteString(`{"name":"s","inputSchema":{`)
	n.WriteString(`{"name":"s","inputSchema":{`)
	for i := range 50 {
		if i > 0 {
			o.WriteByte(',')
			n.WriteByte(',')
		}
		fmt.Fprintf(&o, `"p%02d":"%s"`, i, strings.Repeat("x", 500))
		fmt.Fprintf(&n, `"p%02d":%d`, i, i)
	}
	o.WriteString("}}")
	n.WriteString("}}")
	got := pin.Diff([]byte(o.String()), []byte(n.String()))
	if len(got) != pin.MaxDiffLines+1 || got[pin.MaxDiffLines] != "… and 30 more changes" {
		t.Fatalf("%d lines, last %q", len(got), got[len(got)-1])
	}
	for _, l := range got[:pin.MaxDiffLines] {
		if len(l) > 300 {
			t.Errorf("a line of %d bytes: %.80s…", len(l), l)
		}
	}
	if got := pin.Diff([]byte(`{"name":"s"}`), []byte(`not json`)); len(got) != 1 || !strings.HasPrefix(got[0], `: {"name":"s"} → null`) {
		t.Errorf("against an unreadable side: %q", got)
	}
}

func TestVerdictsAndConstruction(t *testing.T) {
	names := map[pin.Verdict]string{pin.Approved: "approved", pin.Changed: "changed", pin.Unpinned: "unpinned", pin.Unreadable: "unreadable"}
	for v, want := range names {
		if v.String() != want {
			t.Errorf("%d.String() = %q", v, v.String())
		}
	}
	l := lockOf(t, search)
	if p := pin.New(l, nil); p.Lock() != l {
		t.Error("Lock() is not the lock given")
	}
	if _, ok := l.Tool("absent"); ok {
		t.Error("an absent tool found")
	}
	if _, err := pin.NewLock("s", []jsonRaw{[]byte(search), []byte(search)}); err == nil {
		t.Error("two tools of one name pinned")
	}
	if _, err := pin.NewLock("s", []jsonRaw{[]byte(`{"name":1}`)}); err == nil {
		t.Error("a tool with a number for a name pinned")
	}
	defer func() {
		if recover() == nil {
			t.Error("New(nil) did not panic")
		}
	}()
	pin.New(nil, nil)
}
