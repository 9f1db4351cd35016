// Package chain runs the stages that wrap a tool call's answer, in
// core/pipeline's one order, for every consumer of the core: log, recover,
// repeats (the repeated-failure guard), redact and render. A consumer
// writes an [Adapter] of small methods that read and write its SDK's
// types (or the wire's JSON) and builds one [Chain] from the [Stages] it
// runs; the chain decides the rest: which stage runs around which, what
// each outcome becomes ([pipeline.Outcome.Policy]), what the guard
// counts and releases, what is redacted.
//
// A stage of admission (pins, seal, hints, limits, declared) runs in the
// chain too, as a [Gate] given to [New]: the chain runs its gates in
// core/pipeline's order, inside the stages that wrap the answer, and
// answers a refusal as a Go error of the handler's, rendered like any
// other. A [Leaver] also hands out the answer (seal), a [Wrapper] runs
// around the rest (hints). Both fronts run pins, seal, hints and the
// declared check so; a consumer that answers a call later than it admits
// it (mcpguard-proxy) runs the guard with [Chain.Begin], its gates with
// [Chain.Admit] and the rest with [Run.End]. The stages of admission a
// consumer keeps as its own layers (the limits of the SDK fronts),
// ordered by pipeline.Layers.Ordered, are the [Handler] the chain calls.
//
// A stage is written once, here: a fix to what the guard counts, or to
// what a Go error becomes, reaches every consumer that runs it.
package chain
