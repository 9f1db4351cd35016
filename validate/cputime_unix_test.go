//go:build unix

package validate_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used, for
// the opt-in CPU-cost measurements; ok is false where the OS has no
// getrusage.
func processCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
