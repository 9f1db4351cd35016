package rpc_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/cmd/mcpguard-proxy/internal/proxy/rpc"
)

// A client's message is read once, strictly: one that readers would read
// two ways is refused, with the proxy's words for why.
func ExampleReadClient() {
	m, err := rpc.ReadClient([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
	fmt.Println(m.Method, string(m.ID), string(m.Params), err)

	_, err = rpc.ReadClient([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","Method":"ping"}`))
	fmt.Println(rpc.IsAmbiguity(err), err)
	// Output:
	// tools/call 7 {"name":"echo","arguments":{"text":"hi"}} <nil>
	// true an object repeats a member, or writes its name in another case, which servers read differently
}

// Two spellings of one id have one key; 7 and "7" are two ids.
func ExampleIDKey() {
	a, _ := rpc.IDKey([]byte(`"a"`))
	b, _ := rpc.IDKey([]byte(`"\u0061"`))
	n, _ := rpc.IDKey([]byte(`7`))
	s, _ := rpc.IDKey([]byte(`"7"`))
	fmt.Println(a == b, n == s)
	// Output: true false
}
