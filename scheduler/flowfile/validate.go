package flowfile

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

var jobName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// validate checks what spans jobs: names, needs, cycles.
func (p *parser) validate(f *File) {
	p.names(f)
	byName := make(map[string]*JobSpec, len(f.Jobs))
	for _, j := range f.Jobs {
		byName[j.Name] = j
	}
	needsOK := true
	for _, j := range f.Jobs {
		needsOK = p.jobNeeds(j, byName) && needsOK
	}
	if needsOK {
		p.cycles(f, byName)
	}
	p.timeouts(f)
	p.keyedVars(f)
}

// names checks that job names are usable as env var parts and do not
// collide once mapped (HYPHAE_IN_<JOB>_<KEY>).
func (p *parser) names(f *File) {
	seen := map[string]string{}
	for _, j := range f.Jobs {
		if !jobName.MatchString(j.Name) || len(j.Name) > 64 {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name,
				Msg: "bad name: use up to 64 letters, digits, '_' and '-', starting with a letter or '_'"})
			continue
		}
		env := EnvName(j.Name)
		if other, dup := seen[env]; dup {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name,
				Msg: "name collides with job \"" + other + "\": both give HYPHAE_IN_" + env + "_*"})
			continue
		}
		seen[env] = j.Name
	}
}

// jobNeeds checks one job's needs; false when any is unusable.
func (p *parser) jobNeeds(j *JobSpec, byName map[string]*JobSpec) bool {
	ok := true
	seen := map[string]bool{}
	for _, n := range j.Needs {
		line := p.needLines[[2]string{j.Name, n}]
		msg := ""
		switch {
		case n == j.Name:
			msg = "needs itself"
		case byName[n] == nil:
			msg = "needs unknown job \"" + n + "\"" + didYouMean(n, byName)
		case seen[n]:
			msg = "needs \"" + n + "\" twice"
		}
		seen[n] = true
		if msg != "" {
			p.errs = append(p.errs, &FileError{File: p.src, Line: line, Job: j.Name, Msg: msg})
			ok = false
		}
	}
	return ok
}

func didYouMean(n string, byName map[string]*JobSpec) string {
	names := make([]string, 0, len(byName))
	for k := range byName {
		names = append(names, k)
	}
	sort.Strings(names) // ties go to the first name, whatever the map's order
	if s := suggest(n, names); s != "" {
		return " (did you mean \"" + s + "\"?)"
	}
	return ""
}

// timeouts warns about job timeouts the flow's own timeout cuts short.
func (p *parser) timeouts(f *File) {
	for _, j := range f.Jobs {
		if f.Timeout > 0 && j.Timeout > f.Timeout {
			p.warn(j.Line, j.Name, "timeout %s is longer than the flow's timeout %s", j.Timeout, f.Timeout)
		}
		if j.Timeout > 0 && j.Timeout%1e9 != 0 {
			p.warn(j.Line, j.Name, "timeout %s rounds up to whole seconds", j.Timeout)
		}
	}
}

var runnerID = regexp.MustCompile(`^runner:[0-9]+$`)

// checkRunner says what is wrong with a job's runner value, "" when it is
// one the scheduler can route: none (the agent picks a registered runner),
// self, runner:<id> or a peer ID. Anything else is refused when the flow
// is created, not sent nowhere when the job is ready.
func checkRunner(r string) string {
	if r == "" || r == "self" || runnerID.MatchString(r) {
		return ""
	}
	if _, err := peer.Decode(r); err == nil {
		return ""
	}
	return fmt.Sprintf("runner %q: want self, a peer ID (12D3KooW…) or runner:<id>"+
		" of a runner registered in the flow's context (hyphae runner list CONTEXT);"+
		" leave runner out to let the agent pick a registered runner", r)
}

// Validate checks a File built in code (Parse has done it for files read):
// names, needs, cycles, and that every job has a type, a script and a
// runner value the scheduler can route.
func (f *File) Validate() error {
	p := &parser{src: f.Source, needLines: map[[2]string]int{}}
	if p.src == "" {
		p.src = "flow"
	}
	seen := map[string]bool{}
	for _, j := range f.Jobs {
		if seen[j.Name] {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Msg: "duplicate job \"" + j.Name + "\""})
		}
		seen[j.Name] = true
		if j.Type == "" || strings.TrimSpace(j.Script) == "" {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name, Msg: "needs a type and a script"})
		}
		if msg := checkRunner(j.Runner); msg != "" {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name, Msg: msg})
		}
		if err := model.CheckNetwork(j.Network); err != nil {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name, Msg: err.Error()})
		}
	}
	if err := model.CheckNetwork(f.Network); err != nil {
		p.errs = append(p.errs, &FileError{File: p.src, Msg: err.Error()})
	}
	if len(p.errs) == 0 {
		p.validate(f)
	}
	if len(p.errs) > 0 {
		return p.errs.sorted()
	}
	return nil
}
