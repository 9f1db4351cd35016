package audit

import (
	"fmt"
	"strings"
)

// readVerbs lead the names of tools that only read.
var readVerbs = map[string]bool{
	"get": true, "list": true, "search": true, "read": true, "find": true, "fetch": true,
	"query": true, "describe": true, "show": true, "lookup": true, "view": true, "browse": true,
}

// destructiveVerbs lead the names (or descriptions) of tools that delete.
var destructiveVerbs = map[string]bool{
	"delete": true, "drop": true, "remove": true, "destroy": true, "purge": true, "truncate": true,
	"erase": true, "wipe": true, "rm": true, "unlink": true, "revoke": true, "uninstall": true,
}

// firstWord returns the lowercased first word of s, splitting on anything
// that is not a letter or digit.
func firstWord(s string) string {
	s = strings.ToLower(s)
	end := strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	if end < 0 {
		return s
	}
	return s[:end]
}

// verbOf returns the action a tool's name leads with, after the prefix:
// its first word, or its second when the first is no verb we know and so
// may be an undetected namespace ("github_get_issue").
func (a *auditor) verbOf(name string) string {
	if a.prefix != "" && strings.HasPrefix(name, a.prefix) {
		name = name[len(a.prefix):]
	}
	first := firstWord(name)
	if readVerbs[first] || destructiveVerbs[first] || len(first) >= len(name) {
		return first
	}
	return firstWord(name[len(first)+1:])
}

// destructive reports whether the name or the description's first word
// says the tool deletes ("delete_user", "Deletes a user ...").
func (a *auditor) destructive(t tool) bool {
	d := strings.TrimSuffix(firstWord(strings.TrimSpace(t.description)), "s")
	return destructiveVerbs[a.verbOf(t.name)] || destructiveVerbs[d]
}

// checkAnnotations is rule E. mcp-go's mcp.NewTool always sends the
// default hints, so presence alone says little: what counts is whether
// the hints agree with what the tool says it does.
func (a *auditor) checkAnnotations(t tool) {
	a.item(RuleAnnotations, t.name, "annotations")
	add := func(check string, sev Severity, path, msg, fix string) {
		a.add(Finding{Rule: RuleAnnotations, Check: check, Severity: sev, Tool: t.name, Path: path, Message: msg, Fix: fix})
	}
	verb := a.verbOf(t.name)
	if len(t.annotations) == 0 {
		fix := `declare "annotations" with readOnlyHint, destructiveHint, idempotentHint and openWorldHint`
		if readVerbs[verb] {
			fix = `declare "annotations": {"readOnlyHint": true}`
		}
		add(CheckAnnotationsMissing, Warning, "annotations", "the tool declares no annotations, so clients cannot tell a read from a write: they ask the user to confirm every call, or none", fix)
		return
	}
	readOnly, _ := t.annotations["readOnlyHint"].(bool)
	harmless := false
	if d, ok := t.annotations["destructiveHint"].(bool); ok && !d {
		harmless = true // the default, when absent, is destructive
	}
	switch {
	case a.destructive(t) && (readOnly || harmless):
		claim := "readOnlyHint: true"
		if !readOnly {
			claim = "destructiveHint: false"
		}
		add(CheckDestructiveHint, Error, "annotations", fmt.Sprintf("the tool deletes (by its name or description) but claims %s, so clients may run it without asking the user", claim),
			`set "readOnlyHint": false and "destructiveHint": true`)
	case readVerbs[verb] && !readOnly && !a.destructive(t):
		add(CheckReadOnlyHint, Warning, "annotations.readOnlyHint", fmt.Sprintf("a %q tool without readOnlyHint: true; clients ask the user to confirm a harmless read, and users learn to approve every call", verb),
			`set "readOnlyHint": true (mcp.WithReadOnlyHintAnnotation(true)) if the tool only reads; if it writes, rename it`)
	}
}
