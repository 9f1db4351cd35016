package envelope

// ClassifyTextEveryPattern is ClassifyText without the needles: every
// pattern of every rule is tried, so that a test can show the needles
// never change an answer.
func ClassifyTextEveryPattern(text string) (TextClass, bool) {
	for _, head := range textHeads(text) {
		for _, r := range textRules() {
			for _, p := range r.patterns {
				if p.re.MatchString(head) {
					return r.class, r.class.Code != ""
				}
			}
		}
	}
	return TextClass{}, false
}
