package wiretest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Log is a logger for the layers under test that writes each record to the
// test's log (t.Log, shown only for failing tests or with -v) instead of
// stderr, and keeps the records for assertions. It is safe for concurrent
// use.
type Log struct {
	tb      testing.TB
	mu      sync.Mutex
	records []map[string]any
	logger  *slog.Logger
}

// NewLog returns a Log writing to tb's log.
func NewLog(tb testing.TB) *Log {
	l := &Log{tb: tb}
	l.logger = slog.New(slog.NewJSONHandler(logWriter{l}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return l
}

// Logger returns the logger to give the layers.
func (l *Log) Logger() *slog.Logger { return l.logger }

type logWriter struct{ l *Log }

// Write receives one JSON record per call, as slog.JSONHandler writes them.
func (w logWriter) Write(p []byte) (int, error) {
	var m map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(p), &m); err == nil {
		w.l.mu.Lock()
		w.l.records = append(w.l.records, m)
		w.l.mu.Unlock()
	}
	w.l.tb.Helper()
	w.l.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Records returns the records logged so far, each as its JSON object.
func (l *Log) Records() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.records...)
}

// Find returns the first record whose attribute key is the string value,
// or nil.
func (l *Log) Find(key, value string) map[string]any {
	for _, r := range l.Records() {
		if v, ok := r[key].(string); ok && v == value {
			return r
		}
	}
	return nil
}

// ExpectIncident checks that r carries an incident ID and that the server
// logged a record under it whose attributes contain each of details: the
// operator can find what the agent was not shown.
func (l *Log) ExpectIncident(r *Response, details ...string) map[string]any {
	l.tb.Helper()
	if r.Envelope == nil || r.Envelope.IncidentID == "" {
		l.tb.Errorf("%s: want an envelope with an incident_id: %s", r.Tool, r.Describe())
		return nil
	}
	rec := l.Find("incident_id", r.Envelope.IncidentID)
	if rec == nil {
		l.tb.Errorf("%s: no log record for incident %s", r.Tool, r.Envelope.IncidentID)
		return nil
	}
	b, _ := json.Marshal(rec)
	for _, d := range details {
		if !strings.Contains(string(b), d) {
			l.tb.Errorf("%s: the record of incident %s does not contain %q: %s", r.Tool, r.Envelope.IncidentID, d, b)
		}
	}
	return rec
}
