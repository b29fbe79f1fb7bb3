package flowfile

import (
	"slices"
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
	jobs, list := outside(f, known)
	var out []Warning
	for _, j := range jobs {
		out = append(out, Warning{File: f.Source, Line: j.Line, Job: j.Name,
			Msg: "no known runner serves script type \"" + j.Type + "\" (known: " + strings.Join(list, ", ") + ")"})
	}
	return out
}

// UnknownTypes refuses a flow whose jobs name a script type outside known
// (the built-in types, and every type an agent known to this one serves or
// served): a typo or a type nothing was ever set up to run, which would
// otherwise wait for a runner until the job timed out. It returns nil or
// Errors, one per such job, with the known types.
func UnknownTypes(f *File, known []string) error {
	jobs, list := outside(f, known)
	var errs Errors
	for _, j := range jobs {
		msg := "unknown script type \"" + j.Type + "\": not built in, and no agent this one knows serves it (known: " +
			strings.Join(list, ", ") + suggestType(j.Type, list) + ")"
		errs = append(errs, &FileError{File: f.Source, Line: j.Line, Job: j.Name, Msg: msg})
	}
	if errs == nil {
		return nil
	}
	return errs.sorted()
}

// outside returns f's jobs whose script type is not in known, and known
// sorted without repeats, as the messages list it (and suggestions pick
// from it, ties going to the first).
func outside(f *File, known []string) ([]*JobSpec, []string) {
	var jobs []*JobSpec
	for _, j := range f.Jobs {
		if !slices.Contains(known, j.Type) && j.WaitFor == nil { // wait_for: the scheduler's own step
			jobs = append(jobs, j)
		}
	}
	list := slices.Clone(known)
	sort.Strings(list)
	return jobs, slices.Compact(list)
}

func suggestType(t string, known []string) string {
	if s := suggest(t, known); s != "" {
		return "; did you mean \"" + s + "\"?"
	}
	return ""
}
