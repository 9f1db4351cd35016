// Package chainmark lets package gosdktest tell whether a tool call
// reaches gosdk.Middleware through a middleware outside it. go-sdk keeps
// a server's receiving middleware as nested closures and does not list
// them, so a probe that gosdktest adds outermost recognizes the handler it
// wraps by its code pointer (every handler gosdk builds is marked here),
// and gosdk.Middleware reports each tool call it serves to the probe found
// in the call's context.
//
// Production code pays one atomic load per tool call: nothing is looked up
// unless a probe was installed in the process.
package chainmark
