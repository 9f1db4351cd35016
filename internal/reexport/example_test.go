package reexport_test

import (
	"fmt"
	"slices"

	"github.com/mcpguard/mcpguard/internal/reexport"
)

func Example() {
	pkgs, err := reexport.Load("io/fs")
	if err != nil {
		fmt.Println(err)
		return
	}
	v := reexport.Of(pkgs["io/fs"])
	fmt.Println(slices.Contains(v.Sentinels, "ErrNotExist"))
	// Output: true
}
