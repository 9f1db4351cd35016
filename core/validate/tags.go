package validate

import "strings"

// rule is one validate tag with its parameter, e.g. max=50.
type rule struct {
	name  string
	param string
	raw   string // as written, for descriptions
}

// level is the part of a validate tag that applies at one depth: the field
// itself, or its elements after "dive".
type level struct {
	rules     []rule
	required  bool
	omitempty bool // omitempty, omitnil or omitzero
	skip      bool // "-": validator/v10 ignores the field
	noStruct  bool // structonly or nostructlevel
	keys      *level
	dive      *level
}

// parseTag splits a validate tag the way validator/v10 does: commas
// separate tags, "dive" starts the elements' tags, "keys"..."endkeys"
// enclose a map's key tags, "0x2C" and "0x7C" in parameters stand for a
// comma and a pipe.
func parseTag(tag string) *level {
	root := &level{}
	if tag == "" {
		return root
	}
	if tag == "-" {
		root.skip = true
		return root
	}
	cur := root
	var inKeys *level
	for _, part := range strings.Split(tag, ",") {
		part = strings.TrimSpace(part)
		target := cur
		if inKeys != nil {
			target = inKeys
		}
		switch part {
		case "":
			continue
		case "dive":
			next := &level{}
			cur.dive = next
			cur = next
			inKeys = nil
			continue
		case "keys":
			inKeys = &level{}
			cur.keys = inKeys
			continue
		case "endkeys":
			inKeys = nil
			continue
		case "required":
			target.required = true
			continue
		case "omitempty", "omitnil", "omitzero":
			target.omitempty = true
			continue
		case "structonly", "nostructlevel":
			target.noStruct = true
			continue
		}
		name, param, _ := strings.Cut(part, "=")
		param = strings.ReplaceAll(strings.ReplaceAll(param, "0x2C", ","), "0x7C", "|")
		target.rules = append(target.rules, rule{name: name, param: param, raw: part})
	}
	return root
}

// oneofValues splits a oneof parameter exactly as validator/v10 does:
// space-separated words, or 'quoted values' that may contain spaces.
func oneofValues(param string) []string {
	var out []string
	for i := 0; i < len(param); {
		switch {
		case param[i] == ' ' || param[i] == '\t' || param[i] == '\n' || param[i] == '\r' || param[i] == '\f':
			i++
		case param[i] == '\'':
			if j := strings.IndexByte(param[i+1:], '\''); j >= 0 {
				out = append(out, param[i+1:i+1+j])
				i += j + 2
				continue
			}
			fallthrough
		default:
			j := i
			for j < len(param) && !strings.ContainsRune(" \t\n\r\f", rune(param[j])) {
				j++
			}
			out = append(out, strings.ReplaceAll(param[i:j], "'", ""))
			i = j
		}
	}
	return out
}
