package redisstore

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/mcpguard/mcpguard/core/limit"
)

// The Store is also a limit.RepeatStore, for the repeated-failure guard
// of both fronts (limit.WithRepeatStore), so that replicas share the
// count of a call's failures. A call's failures are one hash under the
// store's prefix, "repeat:" and the hex of the call's digest (so at most
// the prefix plus 71 bytes): its count n and its last failure f (code
// and next steps, as JSON), expiring a window after the last failure.
var _ limit.RepeatStore = (*Store)(nil)

func (s *Store) repeatKey(digest string) string {
	return s.prefix + "repeat:" + hex.EncodeToString([]byte(digest))
}

// Failures returns how many failures of the call digest names Redis
// holds, and the last; 0 when none. It returns by ctx's deadline.
func (s *Store) Failures(ctx context.Context, digest string) (int, limit.Failure, error) {
	key := s.repeatKey(digest)
	c := calls.Get().(*call)
	c.fn = func() verdict {
		vals, err := s.client.Do(context.Background(), s.client.B().Hmget().Key(key).Field("n", "f").Build()).ToArray()
		if err != nil {
			return verdict{err: err}
		}
		if len(vals) != 2 || vals[0].IsNil() {
			return verdict{}
		}
		n, err := vals[0].AsInt64()
		if err != nil {
			return verdict{err: ErrAnswer}
		}
		var f limit.Failure
		if b, err := vals[1].ToString(); err == nil {
			_ = json.Unmarshal([]byte(b), &f) // a failure without its steps still counts
		}
		return verdict{n: int(n), failure: f}
	}
	v := s.send(ctx, c)
	return v.n, v.failure, v.err
}

// Fail records one more failure of the call digest names, all of them
// forgotten window after this one: one round trip (HINCRBY, HSET and
// PEXPIRE in a transaction). It returns by ctx's deadline.
func (s *Store) Fail(ctx context.Context, digest string, f limit.Failure, window time.Duration) error {
	key := s.repeatKey(digest)
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	ms := max(1, window.Milliseconds())
	c := calls.Get().(*call)
	c.fn = func() verdict {
		b := s.client.B()
		for _, r := range s.client.DoMulti(context.Background(),
			b.Multi().Build(),
			b.Hincrby().Key(key).Field("n").Increment(1).Build(),
			b.Hset().Key(key).FieldValue().FieldValue("f", string(body)).Build(),
			b.Pexpire().Key(key).Milliseconds(ms).Build(),
			b.Exec().Build(),
		) {
			if err := r.Error(); err != nil {
				return verdict{err: err}
			}
		}
		return verdict{}
	}
	return s.send(ctx, c).err
}
