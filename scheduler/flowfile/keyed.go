package flowfile

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hyphae-run/hyphae/context/model"
)

// Ordering per key in flow files: a job's concurrency_key (with
// max_in_flight, default 1) makes it wait for the jobs of its context with
// the same key that were queued before it, on the runner that takes it
// (docs/flow-control.md). The key may name env vars as ${NAME}: the
// flow's env, the job's own env, or what a run is started with (an event's
// HYPHAE_CORRELATION_ID, say), filled in when the run is made.

// keyedSpec is a JobSpec's concurrency key (a template) and limit.
type keyedSpec = model.Concurrency

// keyVar matches one ${NAME} of a concurrency key.
var keyVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// concurrencyKey reads concurrency_key: printable text of at most
// model.MaxConcurrencyKey bytes, whose "${" start only ${NAME} references.
func (p *parser) concurrencyKey(e entry, job string) string {
	k := p.str(e, job)
	if err := (model.Concurrency{Key: k}).Check(); err != nil {
		p.fail(e.v, job, "concurrency_key: %v", err)
		return ""
	}
	if strings.Contains(keyVar.ReplaceAllString(k, ""), "${") {
		p.fail(e.v, job, "concurrency_key %q: write variables as ${NAME} (letters, digits and _)", k)
		return ""
	}
	return k
}

// maxInFlight reads max_in_flight: a whole number from 1 to
// model.MaxMaxInFlight.
func (p *parser) maxInFlight(e entry, job string) int64 {
	n, err := strconv.ParseInt(e.v.Value, 0, 64)
	if e.v.Kind != yaml.ScalarNode || e.v.Tag != "!!int" || err != nil || n < 1 || n > model.MaxMaxInFlight {
		p.fail(e.v, job, "max_in_flight %s: want a whole number from 1 to %d", kindName(e.v), model.MaxMaxInFlight)
		return 0
	}
	return n
}

// keyedVars checks, once the whole file is read, that every job's
// max_in_flight comes with a concurrency_key and that the key's variables
// are set: by the flow's env, the job's, or the run (HYPHAE_*).
func (p *parser) keyedVars(f *File) {
	for _, j := range f.Jobs {
		if j.Concurrency.Key == "" && j.Concurrency.MaxInFlight != 0 {
			p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name,
				Msg: "max_in_flight needs a concurrency_key: the jobs it limits are those with the same key"})
		}
		for _, m := range keyVar.FindAllStringSubmatch(j.Concurrency.Key, -1) {
			_, inFlow := f.Env[m[1]]
			_, inJob := j.Env[m[1]]
			if !inFlow && !inJob && !strings.HasPrefix(m[1], "HYPHAE_") {
				p.errs = append(p.errs, &FileError{File: p.src, Line: j.Line, Job: j.Name,
					Msg: "concurrency_key names ${" + m[1] + "}, which neither the flow's env nor the job's sets"})
			}
		}
	}
}

// ConcurrencyIn is the job's concurrency with its key's variables filled
// in from env (the run's env) and the job's own env, which wins; a
// variable set by neither becomes "".
func (j *JobSpec) ConcurrencyIn(env map[string]string) model.Concurrency {
	c := j.Concurrency
	c.Key = keyVar.ReplaceAllStringFunc(c.Key, func(ref string) string {
		name := keyVar.FindStringSubmatch(ref)[1]
		if v, ok := j.Env[name]; ok {
			return v
		}
		return env[name]
	})
	return c
}
