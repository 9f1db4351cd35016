// Package logkey names the attribute keys of every log record mcpguard's
// layers write, in every module, so that a query written against one layer's
// records works on another's. middleware re-exports the ones its users
// filter on (middleware.LogKeyTool, …).
package logkey
