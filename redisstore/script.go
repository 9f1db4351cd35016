package redisstore

import (
	"crypto/sha1"
	"encoding/hex"
)

// gcra is the script that decides one call atomically, on Redis: the
// generic cell rate algorithm (GCRA), which admits exactly what a token
// bucket of the same rate and burst admits (x/time/rate, the in-process
// store) but keeps one number per key, the theoretical arrival time
// (TAT) of the next call, rather than a count and a timestamp.
//
// KEYS[1] is the bucket; ARGV[1] the emission interval (microseconds per
// token), ARGV[2] the burst. Time is Redis's own clock (TIME), so replicas
// whose clocks disagree still share one bucket exactly. It returns 0 for
// an allowed call, else the microseconds until a token is there (at least
// 1). An allowed call writes the new TAT with an expiry at the moment the
// bucket is full again, when the key is the same as no key: Redis memory
// holds only the buckets in use, however many keys callers invent.
const gcra = `
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new = tat + interval
local wait = new - interval * burst - now
if wait > 0 then
  return math.max(1, math.ceil(wait))
end
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.max(1, math.ceil((new - now) / 1000)))
return 0
`

// gcraSHA1 names gcra for EVALSHA.
var gcraSHA1 = func() string {
	sum := sha1.Sum([]byte(gcra))
	return hex.EncodeToString(sum[:])
}()
