// Package reexport checks, in a test, that an SDK front re-exports the
// vocabulary of mcpguard's core (github.com/mcpguard/mcpguard/core/...)
// and invents none of its own: the codes and other constants, the
// sentinel errors and the error decorators. Each front's module runs it
// against its own packages, so forgetting to re-export a new sentinel on
// one front fails that front's tests, and since both fronts are held to
// the same core, a name one front exports and the other lacks fails too.
//
// It type-checks nothing itself: it reads the export data of compiled
// packages (go list -export) with go/importer, so it needs the go command
// and no dependency.
package reexport
