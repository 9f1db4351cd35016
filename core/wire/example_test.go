package wire_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/core/wire"
)

func ExampleCanonical() {
	out, _ := wire.Canonical(nil, []byte(` {"path": "\u0061.txt", "limit": 10.0, "id": 9007199254740993} `))
	fmt.Println(string(out))
	// Output: {"id":9007199254740993,"limit":10,"path":"a.txt"}
}

func ExampleDigest() {
	a, _ := wire.Digest("read_file", []byte(`{"path":"a.txt","limit":10}`))
	b, _ := wire.Digest("read_file", []byte(`{"limit":1e1, "path":"a.txt"}`))
	fmt.Println(a == b)
	// Output: true
}
