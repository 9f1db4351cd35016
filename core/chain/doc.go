// Package chain runs the stages that wrap a tool call's answer, in
// core/pipeline's one order, for every consumer of the core: log, recover,
// repeats (the repeated-failure guard), redact and render. A consumer
// writes an [Adapter] of small methods that read and write its SDK's
// types (or the wire's JSON) and builds one [Chain] from the [Stages] it
// runs; the chain decides the rest: which stage runs around which, what
// each outcome becomes ([pipeline.Outcome.Policy]), what the guard
// counts and releases, what is redacted.
//
// The go-sdk front runs every stage in one Chain. A stage of admission
// that admits or refuses a call (pins, seal, declared) can run in the
// chain too, as a [Gate] given to [New]: the chain runs its gates in
// core/pipeline's order, inside the stages that wrap the answer, and
// answers a refusal as a Go error of the handler's, rendered like any
// other (both fronts run pins, seal and the declared check so). The
// stages of admission a consumer keeps as its own layers, ordered by
// pipeline.Layers.Ordered, are the [Handler] the chain calls.
//
// A stage is written once, here: a fix to what the guard counts, or to
// what a Go error becomes, reaches every consumer that runs it.
package chain
