package flowfile

import (
	"gopkg.in/yaml.v3"
)

// compensateKeys are the keys of a job's `compensate:` mapping: a job of
// its own, run only when the flow fails or is cancelled after the job
// finished (see scheduler/compensate.go).
var compensateKeys = []string{"type", "script", "script_file", "runner", "env", "timeout", "retries", "network"}

// compensate decodes a job's `compensate:` mapping into a JobSpec named
// after the job it undoes.
func (p *parser) compensate(e entry, job string) *JobSpec {
	c := &JobSpec{Name: job, Line: e.k.Line}
	if e.v.Kind != yaml.MappingNode {
		p.fail(e.v, job, "compensate: want a mapping with type and script, got %s", kindName(e.v))
		return nil
	}
	var scriptKey, fileKey *yaml.Node
	for _, f := range p.entries(e.v, job, "key") {
		switch f.key {
		case "type":
			c.Type = p.str(f, job)
		case "script":
			c.Script, scriptKey = p.str(f, job), f.k
		case "script_file":
			c.ScriptFile, fileKey = p.str(f, job), f.k
		case "runner":
			c.Runner = p.runner(f, job)
		case "env":
			c.Env = p.env(f, job)
		case "timeout":
			c.Timeout = p.duration(f, job)
		case "retries":
			c.Retries = p.count(f, job)
		case "network": // network.go; default: the job's
			c.Network = p.network(f, job)
		default:
			p.unknownKey(f, job, compensateKeys)
		}
	}
	p.jobType(c, e.k)
	p.script(c, e.k, scriptKey, fileKey)
	return c
}
