//go:build !unix

package gosdk_test

import "time"

// processCPU reports that this OS has no getrusage: the opt-in CPU-cost
// measurements skip themselves here.
func processCPU() (time.Duration, bool) { return 0, false }
