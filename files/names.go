package files

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// CheckPath refuses an entry path that is not a canonical relative,
// slash-separated path inside the job's directory.
func CheckPath(p string) error {
	switch {
	case p == "" || p == "." || strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("%w: %q", ErrBadName, p)
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("%w: %q", ErrAbsolutePath, p)
	case hasDotDot(p):
		return fmt.Errorf("%w: %q", ErrOutsideDir, p)
	case !fs.ValidPath(p):
		return fmt.Errorf("%w: %q is not a canonical relative path", ErrBadName, p)
	}
	return nil
}

// CheckName refuses a name that is not one path element (a producer's
// name under in/).
func CheckName(name string) error {
	if err := CheckPath(name); err != nil {
		return err
	}
	if strings.Contains(name, "/") {
		return fmt.Errorf("%w: %q is more than one path element", ErrBadName, name)
	}
	return nil
}

// cleanPattern checks an outputs pattern and returns it cleaned.
func cleanPattern(p string) (string, error) {
	switch {
	case p == "" || strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("%w: output %q", ErrBadName, p)
	case strings.HasPrefix(p, "/"):
		return "", fmt.Errorf("%w: output %q", ErrAbsolutePath, p)
	}
	c := path.Clean(p)
	if hasDotDot(c) {
		return "", fmt.Errorf("%w: output %q", ErrOutsideDir, p)
	}
	if _, err := path.Match(c, ""); err != nil {
		return "", fmt.Errorf("%w: output %q: %v", ErrBadName, p, err)
	}
	return c, nil
}

func hasDotDot(p string) bool {
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// patterns are the cleaned outputs of one job.
type patterns []string

// full reports whether p, or a folder above it, matches a pattern: p is
// an output.
func (ps patterns) full(p string) bool {
	for q := p; ; q = path.Dir(q) {
		for _, pat := range ps {
			if pat == "." {
				return true
			}
			if ok, _ := path.Match(pat, q); ok {
				return true
			}
		}
		if !strings.Contains(q, "/") {
			return false
		}
	}
}

// prefix reports whether the folder p could hold a match: its elements
// match the first elements of a pattern.
func (ps patterns) prefix(p string) bool {
	els := strings.Split(p, "/")
outer:
	for _, pat := range ps {
		pels := strings.Split(pat, "/")
		if len(pels) <= len(els) {
			continue
		}
		for i, el := range els {
			if ok, _ := path.Match(pels[i], el); !ok {
				continue outer
			}
		}
		return true
	}
	return false
}
