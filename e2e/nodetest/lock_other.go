//go:build !unix

package nodetest

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// lockFile takes an exclusive lock by creating file, which fails while
// another process holds it, and returns the function that releases it. A
// lock older than the longest install is taken to be left by a killed
// process.
func lockFile(file string) (func(), error) {
	const stale = 10 * time.Minute
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { _ = os.Remove(file) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if fi, err := os.Stat(file); err == nil && time.Since(fi.ModTime()) > stale {
			_ = os.Remove(file)
		}
		if time.Since(start) > 2*stale {
			return nil, fmt.Errorf("waiting for %s: another npm install holds it", file)
		}
	}
}
