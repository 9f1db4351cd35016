//go:build unix

package audit_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used so far, user and system:
// on a machine shared with other work, a benchmark's CPU time per
// operation is steadier than its wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
