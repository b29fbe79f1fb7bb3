package flowfile

import "strings"

// cycles reports the first cycle of needs, named in order: "a -> b -> c ->
// a" reads "a needs b, b needs c, c needs a", starting at the cycle's job
// that comes first in the file.
func (p *parser) cycles(f *File, byName map[string]*JobSpec) {
	const (
		white = iota
		grey
		black
	)
	color := make(map[string]int, len(f.Jobs))
	var stack []string
	var found []string
	var visit func(name string) bool
	visit = func(name string) bool {
		color[name] = grey
		stack = append(stack, name)
		for _, n := range byName[name].Needs {
			switch color[n] {
			case grey:
				found = cyclePath(stack, n)
				return true
			case white:
				if visit(n) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[name] = black
		return false
	}
	for _, j := range f.Jobs {
		if color[j.Name] == white && visit(j.Name) {
			break
		}
	}
	if found == nil {
		return
	}
	found = rotateToFirst(found, f)
	first := byName[found[0]]
	p.errs = append(p.errs, &FileError{File: p.src, Line: first.Line,
		Msg: "cycle: " + strings.Join(append(found, found[0]), " -> ")})
}

// cyclePath is the part of stack from the first occurrence of start.
func cyclePath(stack []string, start string) []string {
	for i, s := range stack {
		if s == start {
			return append([]string(nil), stack[i:]...)
		}
	}
	return nil
}

// rotateToFirst starts the cycle at the member that comes first in the file.
func rotateToFirst(cycle []string, f *File) []string {
	pos := make(map[string]int, len(f.Jobs))
	for i, j := range f.Jobs {
		pos[j.Name] = i
	}
	best := 0
	for i, name := range cycle {
		if pos[name] < pos[cycle[best]] {
			best = i
		}
	}
	return append(append([]string(nil), cycle[best:]...), cycle[:best]...)
}
