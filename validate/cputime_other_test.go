//go:build !unix

package validate_test

import "time"

// processCPU is nil where getrusage is missing: TestValidationCPUCost
// skips.
var processCPU func() time.Duration
