package proxy_test

import "testing"

// The dotted and dotless i (İ, ı) are not i to encoding/json, whose
// readers the proxy stands in front of: a member "ıd" beside "id" is two
// members, not one sent twice, so the child reads the call (core/wire's
// fold is encoding/json's, and the proxy's readers use it).
func TestStdioDottedAndDotlessIAreNotI(t *testing.T) {
	s := start(t)
	s.request("tools/list", `{}`)
	for _, args := range []string{`{"text":"a","ıd":1,"id":2}`, `{"text":"a","İD":1,"id":2}`} {
		if got := textOf(t, s.call("echo", args)); got != "a" {
			t.Errorf("%s: the child did not answer it: %q", args, got)
		}
	}
}
