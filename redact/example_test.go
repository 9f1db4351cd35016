package redact_test

import (
	"fmt"

	"github.com/mcpguard/mcpguard/redact"
)

func ExampleString() {
	fmt.Println(redact.String(`dial postgres://app:hunter2@db:5432/shop: relation "users" does not exist`))
	fmt.Println(redact.String(`upstream rejected Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl`))
	fmt.Println(redact.String(`open /srv/shop/config.yaml: permission denied`))
	// Output:
	// dial postgres://app:[REDACTED]@db:5432/shop: relation "users" does not exist
	// upstream rejected Authorization: Bearer [REDACTED]
	// open [path]: permission denied
}

func ExampleRedactor_With() {
	r := redact.Default().With(redact.NewRule("employee-id", `\bEMP-\d{6}\b`, "EMP-[REDACTED]", "emp-"))
	fmt.Println(r.String("no record for EMP-004211"))
	// Output: no record for EMP-[REDACTED]
}
