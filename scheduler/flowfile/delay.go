package flowfile

import (
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// runAt reads a job's run_at: unix seconds or an RFC 3339 time.
func (p *parser) runAt(e entry, job string) time.Time {
	v := e.v
	if v.Kind == yaml.ScalarNode && !isNull(v) {
		if n, err := strconv.ParseInt(v.Value, 10, 64); err == nil && n > 0 {
			return time.Unix(n, 0)
		}
		if t, err := time.Parse(time.RFC3339, v.Value); err == nil {
			return t
		}
	}
	p.fail(v, job, "run_at %s: want unix seconds or an RFC 3339 time such as 2026-12-24T18:00:00Z", kindName(v))
	return time.Time{}
}

// when checks that a job gives run_at or delay, not both.
func (p *parser) when(j *JobSpec, at *yaml.Node) {
	if !j.RunAt.IsZero() && j.Delay > 0 {
		p.fail(at, j.Name, "give run_at or delay, not both")
	}
}

// sleep makes job j a step that only waits: `sleep: 30m` is a noop job
// whose delay is 30m, so the wait is a timer in Redis (store.TimersKey),
// not a process or a goroutine, and a restarted agent resumes it.
func (p *parser) sleep(j *JobSpec, at *yaml.Node, scripted bool) {
	switch {
	case scripted || j.Type != "":
		p.fail(at, j.Name, "a sleep step only waits: give it no type, script or script_file")
	case j.Delay > 0 || !j.RunAt.IsZero():
		p.fail(at, j.Name, "a sleep step waits by itself: give it no delay or run_at")
	case j.Sleep <= 0:
		p.fail(at, j.Name, "sleep: want a duration such as 30s or 30m")
	}
	j.Type, j.Script, j.Delay = sleepType, "sleep "+j.Sleep.String(), j.Sleep
}

// sleepType runs a sleep step: the runner's built-in type that runs
// nothing.
const sleepType = "noop"
