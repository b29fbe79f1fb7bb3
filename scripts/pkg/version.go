package main

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	versionCore = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
	// gitDescribe is what `git describe --tags` adds after a tag: N
	// commits since it, g and the commit.
	gitDescribe = regexp.MustCompile(`^([0-9]+)-g([0-9a-f]+)$`)
	pkgSafe     = regexp.MustCompile(`^[0-9][0-9A-Za-z.+~]*$`)
)

// pkgVersion turns a release VERSION (scripts/release: a tag such as
// v0.2.0, `git describe` output such as v0.2.0-3-gabc, or
// 0.1.0-dev+<commit>) into a version that dpkg and rpm both accept and
// order as meant: a pre-release sorts before its release (~), builds after
// a tag sort after it (+). 0.1.0-dev+abc → 0.1.0~dev+abc, v0.2.0-rc.1 →
// 0.2.0~rc.1, v0.2.0-3-gabc → 0.2.0+3.gabc.
func pkgVersion(v string) (string, error) {
	s := strings.TrimPrefix(v, "v")
	s, meta, _ := strings.Cut(s, "+")
	core, pre, _ := strings.Cut(s, "-")
	if !versionCore.MatchString(core) {
		return "", fmt.Errorf("version %q: %q is not numbers and dots", v, core)
	}
	out := core
	if m := gitDescribe.FindStringSubmatch(pre); m != nil {
		out += "+" + m[1] + ".g" + m[2]
	} else if pre != "" {
		out += "~" + strings.ReplaceAll(pre, "-", ".")
	}
	if meta != "" {
		sep := "+"
		if strings.Contains(out, "+") {
			sep = "."
		}
		out += sep + strings.ReplaceAll(meta, "-", ".")
	}
	if !pkgSafe.MatchString(out) {
		return "", fmt.Errorf("version %q: %q has characters a package version may not", v, out)
	}
	return out, nil
}
