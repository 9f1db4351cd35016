package envelope_test

import (
	"testing"

	"github.com/mcpguard/mcpguard/core/envelope"
)

// The entry counting the violations left out says how many in English.
func TestMoreFieldsCountsInEnglish(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{
		1: "1 more invalid argument is not listed; fix these first",
		2: "2 more invalid arguments are not listed; fix these first",
		7: "7 more invalid arguments are not listed; fix these first",
	} {
		f := envelope.MoreFields(n)
		if f.Message != want || f.Rule != "more" {
			t.Errorf("MoreFields(%d) = %+v, want rule more and %q", n, f, want)
		}
	}
}

// Internal marks an error internal whatever it wraps, even a coded error
// of another code, and keeps nil nil.
func TestInternalMarksAnyError(t *testing.T) {
	t.Parallel()
	if got := envelope.CodeOf(envelope.Internal(envelope.ErrNotFound)); got != envelope.InternalError {
		t.Errorf("CodeOf(Internal(ErrNotFound)) = %s", got)
	}
	if !envelope.Is(envelope.Internal(envelope.ErrNotFound), envelope.ErrNotFound) {
		t.Error("what Internal wraps is still reachable")
	}
	if envelope.Internal(nil) != nil {
		t.Error("Internal(nil) is not nil")
	}
}
