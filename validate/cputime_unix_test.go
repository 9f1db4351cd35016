//go:build unix

package validate_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system.
var processCPU = func() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
