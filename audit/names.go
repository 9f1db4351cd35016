package audit

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// specName is the MCP specification's tool name shape (2025-11-25): 1 to
// 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot.
var specName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// verbs are leading words that many unrelated tools share ("get_user",
// "get_order"): they are actions, not namespaces.
var verbs = map[string]bool{
	"get": true, "list": true, "create": true, "update": true, "delete": true,
	"search": true, "read": true, "write": true, "set": true, "add": true,
	"remove": true, "find": true, "run": true, "fetch": true, "query": true,
	"edit": true, "open": true, "close": true, "move": true, "copy": true,
	"send": true, "post": true, "put": true, "patch": true, "start": true,
	"stop": true, "check": true, "verify": true, "submit": true, "toggle": true,
	"trigger": true, "do": true, "make": true, "new": true, "show": true,
	"describe": true, "upload": true, "download": true, "execute": true,
	"call": true, "lookup": true, "recommend": true, "compute": true,
}

// leadingSegment returns a name's first word and its separator ("_" or
// "."), or "" if the name has no separator.
func leadingSegment(name string) string {
	i := strings.IndexAny(name, "_.")
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	return name[:i+1]
}

// detectPrefix returns the namespace most tools share, or "".
func detectPrefix(names []string) string {
	if len(names) < 2 {
		return ""
	}
	counts := map[string]int{}
	for _, n := range names {
		if seg := leadingSegment(n); seg != "" && !verbs[strings.ToLower(seg[:len(seg)-1])] {
			counts[seg]++
		}
	}
	best, bestN := "", 0
	for seg, c := range counts {
		if c > bestN || (c == bestN && seg < best) {
			best, bestN = seg, c
		}
	}
	if bestN >= 2 && 2*bestN > len(names) {
		return best
	}
	return ""
}

func (a *auditor) checkNames() {
	var names []string
	for _, t := range a.tools {
		names = append(names, t.name)
	}
	sort.Strings(names)
	a.prefix = a.o.prefix
	if !a.o.prefixSet {
		a.prefix = detectPrefix(names)
		a.detected = a.prefix != ""
	}
	reported := map[string]bool{}
	for _, t := range a.tools {
		name := t.name
		a.item(RuleNames, name, "name")
		if a.names[name] > 1 && !reported[name] {
			reported[name] = true
			a.add(Finding{Rule: RuleNames, Check: CheckDuplicate, Severity: Error, Tool: name, Path: "name",
				Message: fmt.Sprintf("%d tools are named %q; clients keep one of them at random or reject the list", a.names[name], name),
				Fix:     "give every tool a unique name"})
		}
		if !specName.MatchString(name) {
			a.add(Finding{Rule: RuleNames, Check: CheckName, Severity: Error, Tool: name, Path: "name",
				Message: "the MCP specification allows only 1-128 characters of A-Z a-z 0-9 _ - . in a tool name; clients may reject or rename this tool",
				Fix:     fmt.Sprintf("rename it to %q", suggestName(name, a.prefix))})
		}
		rest := name
		switch {
		case a.prefix != "" && strings.HasPrefix(name, a.prefix) && len(name) > len(a.prefix):
			rest = name[len(a.prefix):]
		case a.prefix != "":
			how := "the namespace prefix"
			if a.detected {
				how = "the namespace prefix most of this server's tools share"
			}
			a.addText(Finding{Rule: RuleNames, Check: CheckNamespace, Severity: Error, Tool: name, Path: "name"}, func() (string, string) {
				return fmt.Sprintf("the name lacks %s %q, so it can collide with another server's tool and the model cannot tell whose it is", how, a.prefix),
					fmt.Sprintf("rename it to %q and update every description that names it", suggestName(name, a.prefix))
			})
		case len(a.tools) == 1 && leadingSegment(name) != "" && !verbs[strings.ToLower(strings.TrimRight(leadingSegment(name), "_."))]:
			a.add(Finding{Rule: RuleNames, Check: CheckNamespace, Severity: Info, Tool: name, Path: "name",
				Message: "a single tool's namespace cannot be detected",
				Fix:     fmt.Sprintf("state it with --prefix / audit.WithPrefix, e.g. %q", leadingSegment(name))})
		default:
			a.addText(Finding{Rule: RuleNames, Check: CheckNamespace, Severity: Error, Tool: name, Path: "name"}, func() (string, string) {
				return "the server's tools share no namespace prefix, so this name can collide with another loaded server's tool (every server has a \"search\") and the model has to guess whose it is",
					fmt.Sprintf("prefix every tool with the server's name, e.g. %q", suggestName(name, serverNamespace(a.o.serverName)))
			})
		}
		if !snakeCase.MatchString(rest) || (a.prefix != "" && rest != name && !snakeCase.MatchString(strings.TrimRight(a.prefix, "_."))) {
			a.addText(Finding{Rule: RuleNames, Check: CheckSnakeCase, Severity: Warning, Tool: name, Path: "name"}, func() (string, string) {
				return "the name is not snake_case; mixed conventions make the model misspell tool names",
					fmt.Sprintf("rename it to %q", suggestName(name, a.prefix))
			})
		}
	}
}

// serverNamespace returns a namespace prefix made of the server's name
// ("secure-filesystem-server 0.2.0" gives "secure_filesystem_",
// "@scope/mcp-server-sqlite" gives "sqlite_"): its first word, after any
// npm scope, in snake_case, without the words "mcp" and "server". It is
// "myserver_" when the name is unknown or has nothing else.
func serverNamespace(server string) string {
	fields := strings.Fields(server)
	if len(fields) == 0 {
		return "myserver_"
	}
	name := fields[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var words []string
	for _, w := range strings.Split(suggestName(name, ""), "_") {
		if w != "mcp" && w != "server" && w != "tool" {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return "myserver_"
	}
	ns := strings.Join(words, "_")
	if len(ns) > 32 {
		ns = strings.TrimRight(ns[:32], "_")
	}
	return ns + "_"
}

// suggestName returns name in snake_case with prefix, for a fix.
func suggestName(name, prefix string) string {
	rest := name
	if prefix != "" && strings.HasPrefix(name, prefix) {
		rest = name[len(prefix):]
	}
	var b strings.Builder
	prevLower := false
	for _, r := range rest {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(r + ('a' - 'A'))
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		s = "tool"
	}
	out := strings.ToLower(prefix) + s
	if len(out) > 128 {
		out = out[:128]
	}
	return out
}
