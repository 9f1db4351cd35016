package main

import (
	"path/filepath"
	"strings"
)

// runtimes maps the programs that start servers to the language the
// server is written in, for fixes that fit it (audit.WithServerLanguage).
var runtimes = map[string]string{
	"node": "node", "nodejs": "node", "npx": "node", "npm": "node", "pnpm": "node", "pnpx": "node",
	"yarn": "node", "bun": "node", "bunx": "node", "deno": "node", "tsx": "node", "ts-node": "node",
	"python": "python", "python3": "python", "uv": "python", "uvx": "python", "pipx": "python",
	"poetry": "python", "pdm": "python", "hatch": "python",
	"java": "java", "mvn": "java", "gradle": "java", "dotnet": "dotnet",
	"ruby": "ruby", "bundle": "ruby", "php": "php",
}

// commandLanguage returns the language of the server a command starts:
// "node" for node, npx, bun ..., "python" for python3.12, uvx ..., "go"
// for go run; "" for anything else, a compiled binary included (which
// may be Go or not).
func commandLanguage(command []string) string {
	if len(command) == 0 {
		return ""
	}
	name := strings.ToLower(filepath.Base(command[0]))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		name = strings.TrimSuffix(name, ext)
	}
	if name == "go" && len(command) > 1 && command[1] == "run" {
		return "go"
	}
	if lang, ok := runtimes[name]; ok {
		return lang
	}
	if strings.HasPrefix(name, "python") { // python3.12
		return "python"
	}
	return ""
}
