package scheduler

import (
	"sort"
	"strings"
)

// CheckTypes warns about jobs whose script type is not among known (the
// types some runner serves today). Runners come and go, so this is a
// warning, never an error. It says nothing when known is empty.
func CheckTypes(f *File, known []string) []Warning {
	if len(known) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, t := range known {
		have[t] = true
	}
	list := append([]string(nil), known...)
	sort.Strings(list)
	var out []Warning
	for _, j := range f.Jobs {
		if !have[j.Type] {
			out = append(out, Warning{File: f.Source, Line: j.Line, Job: j.Name,
				Msg: "no known runner serves script type \"" + j.Type + "\" (known: " + strings.Join(list, ", ") + ")"})
		}
	}
	return out
}
