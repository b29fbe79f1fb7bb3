package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of the README, ARCHITECTURE.md and docs/ names a
// file of the repository: none points outside a clone (README linked
// ../shared/DESIGN.md, which no clone has).
func TestDocLinksStayInTheRepository(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, f := range append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "ARCHITECTURE.md")) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			link, _, _ := strings.Cut(m[1], "#")
			if link == "" || strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target := filepath.Join(filepath.Dir(f), link)
			rel, err := filepath.Rel(root, target)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links %s, outside the repository", filepath.Base(f), m[1])
				continue
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links %s: %v", filepath.Base(f), m[1], err)
			}
		}
	}
}
