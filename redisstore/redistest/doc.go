// Package redistest starts a real redis-server for tests: on a random
// loopback port, in a temporary directory, with nothing saved to disk,
// stopped when the test ends.
//
// Outside CI, a machine without redis-server skips the test with a
// message that says how to install it. When the environment variable CI
// is set, or MCPGUARD_REQUIRE_REDIS=1, a missing redis-server fails the
// test instead: there, Redis tests must run.
package redistest
