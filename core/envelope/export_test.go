package envelope

// ClassifyTextEveryPattern is ClassifyText without the needles: every
// pattern of every rule is tried, so that a test can show the needles
// never change an answer.
func ClassifyTextEveryPattern(text string) (TextClass, bool) {
	for _, line := range textLines(text) {
		for _, r := range textRules() {
			for _, p := range r.patterns {
				if p.re.MatchString(line) {
					c := r.class
					if fix := ownFix(line); fix != "" && c.Code != "" {
						c.NextStep = fix
					}
					return c, c.Code != ""
				}
			}
		}
	}
	return TextClass{}, false
}

// Steps of the classifier's rules, for tests that tell them from a
// server's own fix.
const (
	StepPathKind = stepPathKind
	StepGit      = stepGit
)
