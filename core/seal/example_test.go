package seal_test

import (
	"errors"
	"fmt"

	"github.com/mcpguard/mcpguard/core/seal"
	"github.com/mcpguard/mcpguard/core/wire"
)

func Example() {
	ring, err := seal.ParseKeyRing([]byte("k2:" + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" + "\n"))
	if err != nil {
		panic(err)
	}
	s := seal.New(ring)
	call := seal.Binding{
		Method:    "tools/call",
		Name:      "deploy",
		Arguments: wire.ArgumentsDigest([]byte(`{"service":"api"}`)),
	}
	sealed, _ := s.Seal(call, "env=staging")

	state, err := s.Open(call, sealed)
	fmt.Println(state, err)

	// The client edits the state: it does not open.
	edited := []byte(sealed)
	edited[len(edited)-3] ^= 1
	_, err = s.Open(call, string(edited))
	fmt.Println(errors.Is(err, seal.ErrTampered))

	// The same state, echoed on a call with other arguments.
	other := call
	other.Arguments = wire.ArgumentsDigest([]byte(`{"service":"billing"}`))
	_, err = s.Open(other, sealed)
	fmt.Println(errors.Is(err, seal.ErrBinding))
	// Output:
	// env=staging <nil>
	// true
	// true
}
