package str_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/internal/str"
)

func Example() {
	fmt.Println(str.Clip("naïve café", 6, "…"))
	fmt.Println(str.Prefix("日本語", 4))
	fmt.Println(str.Distance("qeury", "query", 3))
	// Output:
	// na…
	// 日
	// 1
}
