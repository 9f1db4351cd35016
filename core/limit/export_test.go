package limit

import "time"

// NewRepeatsAt is NewRepeats in process on the clock now, for tests.
func NewRepeatsAt(n int, window time.Duration, maxKeys int, now func() time.Time) *Repeats {
	g := NewRepeats(n, window, nil, maxKeys, 0)
	g.mem = newRepeatMemory(maxKeys, now)
	g.store = g.mem
	return g
}

// RepeatsLive is how many calls g remembers in process.
func RepeatsLive(g *Repeats) int { return int(g.mem.live.Load()) }
