// Package oteltest holds what the OpenTelemetry tests of both fronts and
// of mcpguard-proxy share: a recorder on the real OpenTelemetry SDK (the
// in-memory span exporter and a manual metric reader), the table of
// outcomes every consumer must record alike, and the assertions on what
// one call recorded. (The proxy, whose upstream sends a Go error as text,
// runs every case but the unclassified Go error, which it shows redacted
// as execution_failed where a front hides it as internal_error.) It is for tests;
// importing it brings the OpenTelemetry SDK.
//
// A front's test runs [Cases] through its real server, behind its
// recommended chain, and checks each with [CheckCall]:
//
//	for _, c := range oteltest.Cases() {
//		rec := oteltest.NewRecorder()
//		// serve c's handler, traced into rec.TracerProvider and rec.MeterProvider
//		oteltest.CheckCall(t, rec, c, envelopeTheClientGot, oteltest.Expect{Tool: "shop_tool"})
//	}
package oteltest
