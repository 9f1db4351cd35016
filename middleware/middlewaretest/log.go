package middlewaretest

import (
	"log/slog"
	"testing"

	"github.com/mcpguard/mcpguard/core/wiretest"
)

// Log is a logger for the layers under test that writes each record to the
// test's log (t.Log, shown only for failing tests or with -v) instead of
// stderr, and keeps the records for assertions:
//
//	log := middlewaretest.NewLog(t)
//	srv := middlewaretest.New(t, tool, h, middleware.Default(middleware.WithLogger(log.Logger()))...)
//	r := srv.Call(args).ExpectError(envelope.InternalError)
//	log.ExpectIncident(r, "nil map")
//
// It is safe for concurrent use.
type Log struct{ l *wiretest.Log }

// NewLog returns a Log writing to tb's log.
func NewLog(tb testing.TB) *Log { return &Log{wiretest.NewLog(tb)} }

// Logger returns the logger to give the layers (middleware.WithLogger,
// recover.WithLogger, envelope.WithLogger, …).
func (l *Log) Logger() *slog.Logger { return l.l.Logger() }

// Records returns the records logged so far, each as its JSON object.
func (l *Log) Records() []map[string]any { return l.l.Records() }

// Find returns the first record whose attribute key is the string value,
// or nil.
func (l *Log) Find(key, value string) map[string]any { return l.l.Find(key, value) }

// ExpectIncident checks that r carries an incident ID and that the server
// logged a record under it whose attributes contain each of details: the
// operator can find what the agent was not shown.
func (l *Log) ExpectIncident(r *Result, details ...string) map[string]any {
	r.tb.Helper()
	return l.l.ExpectIncident(r.w, details...)
}
