package flowfile

import (
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// Files between jobs (docs/design.md): a job's `outputs:` are paths or
// globs relative to its directory; the files they match when it finishes
// are its files, which the jobs that need it find under in/<job>/. The
// runner checks names again where files leave and land (package files);
// the parser refuses what could never match inside the job's directory.

// outputs reads a job's outputs: a pattern or a list of them.
func (p *parser) outputs(e entry, job string) []string {
	var items []*yaml.Node
	switch {
	case isNull(e.v):
		return nil
	case e.v.Kind == yaml.ScalarNode:
		items = []*yaml.Node{e.v}
	case e.v.Kind == yaml.SequenceNode:
		items = e.v.Content
	default:
		p.fail(e.v, job, "outputs: want a path or glob, or a list of them, got %s", kindName(e.v))
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = deref(it)
		if it.Kind != yaml.ScalarNode || isNull(it) {
			p.fail(it, job, "outputs: want a path or glob relative to the job's directory, got %s", kindName(it))
			continue
		}
		if why := badOutput(it.Value); why != "" {
			p.fail(it, job, "outputs: %q %s", it.Value, why)
			continue
		}
		out = append(out, it.Value)
	}
	return out
}

// badOutput says why pattern o cannot name files of the job's directory
// ("" when it can).
func badOutput(o string) string {
	switch {
	case o == "" || strings.IndexByte(o, 0) >= 0:
		return "is empty or has a NUL"
	case strings.HasPrefix(o, "/"):
		return "is absolute: write it relative to the job's directory, such as out/*.tar.gz"
	case path.Clean(o) == ".." || strings.HasPrefix(path.Clean(o), "../"):
		return "leaves the job's directory"
	}
	if _, err := path.Match(o, ""); err != nil {
		return "is not a valid glob: " + err.Error()
	}
	return ""
}
