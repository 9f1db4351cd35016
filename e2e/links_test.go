package e2e_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdCode     = regexp.MustCompile("`[^`]*`")
	mdHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdInline   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdAnchor   = regexp.MustCompile(`<a (?:name|id)="([^"]+)"`)
	mdScheme   = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
	slugDropRe = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// TestMarkdownLinksResolve: every relative link of every Markdown file of
// the repository names a file that exists and, into a Markdown file, a
// heading (as GitHub spells its anchor) or an <a id> it has. A page split
// or a heading renamed breaks links no other test reads.
func TestMarkdownLinksResolve(t *testing.T) {
	t.Parallel()
	top, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	var bad []string
	files := 0
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		files++
		forEachProseLine(t, p, func(n int, line string) {
			for _, m := range mdLink.FindAllStringSubmatch(mdCode.ReplaceAllString(line, ""), -1) {
				if problem := linkProblem(p, m[1], anchors); problem != "" {
					rel, _ := filepath.Rel(top, p)
					bad = append(bad, fmt.Sprintf("%s:%d: %s %s", rel, n, problem, m[1]))
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("only %d Markdown files found under %s", files, top)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// linkProblem says what is wrong with the link u of the file from, or "".
func linkProblem(from, u string, anchors map[string]map[string]bool) string {
	if mdScheme.MatchString(u) {
		return "" // a URL: not this test's
	}
	path, frag, _ := strings.Cut(u, "#")
	target := from
	if path != "" {
		target = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
	}
	if _, err := os.Stat(target); err != nil {
		return "no such file:"
	}
	if frag == "" || !strings.HasSuffix(target, ".md") {
		return ""
	}
	if anchors[target] == nil {
		anchors[target] = anchorsOf(target)
	}
	if !anchors[target][frag] {
		return "no such heading:"
	}
	return ""
}

// anchorsOf returns the anchors of a Markdown file: GitHub's slug of each
// heading (lower case, punctuation dropped, spaces as hyphens, -1, -2 …
// for repeats) and each <a id>.
func anchorsOf(p string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	forEachProseLine(nil, p, func(_ int, line string) {
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			text := mdInline.ReplaceAllString(strings.ReplaceAll(m[2], "`", ""), "$1")
			slug := strings.ReplaceAll(slugDropRe.ReplaceAllString(strings.ToLower(strings.TrimSpace(text)), ""), " ", "-")
			if n := seen[slug]; n > 0 {
				out[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				out[slug] = true
			}
			seen[slug]++
		}
		for _, a := range mdAnchor.FindAllStringSubmatch(line, -1) {
			out[a[1]] = true
		}
	})
	return out
}

// forEachProseLine calls f with each line of p outside fenced code.
func forEachProseLine(t *testing.T, p string, f func(n int, line string)) {
	file, err := os.Open(p)
	if err != nil {
		if t != nil {
			t.Fatal(err)
		}
		return
	}
	defer file.Close()
	s := bufio.NewScanner(file)
	s.Buffer(make([]byte, 0, 64<<10), 4<<20)
	fenced := false
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			f(n, line)
		}
	}
}
