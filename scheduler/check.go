package scheduler

import (
	"sort"
	"strings"
)

// CheckTypes warns about jobs whose script type is not among known (the
// types some runner serves today). Runners come and go, so this is a
// warning; a type no agent ever served is UnknownTypes' error. It says
// nothing when known is empty.
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

// UnknownTypes refuses a flow whose jobs name a script type outside known
// (the built-in types, and every type an agent known to this one serves or
// served): a typo or a type nothing was ever set up to run, which would
// otherwise wait for a runner until the job timed out. It returns nil or
// Errors, one per such job, with the known types.
func UnknownTypes(f *File, known []string) error {
	have := map[string]bool{}
	for _, t := range known {
		have[t] = true
	}
	list := make([]string, 0, len(have))
	for t := range have {
		list = append(list, t)
	}
	sort.Strings(list)
	var errs Errors
	for _, j := range f.Jobs {
		if !have[j.Type] {
			msg := "unknown script type \"" + j.Type + "\": not built in, and no agent this one knows serves it (known: " +
				strings.Join(list, ", ") + suggestType(j.Type, list) + ")"
			errs = append(errs, &FileError{File: f.Source, Line: j.Line, Job: j.Name, Msg: msg})
		}
	}
	if errs == nil {
		return nil
	}
	return errs.sorted()
}

func suggestType(t string, known []string) string {
	if s := suggest(t, known); s != "" {
		return "; did you mean \"" + s + "\"?"
	}
	return ""
}
