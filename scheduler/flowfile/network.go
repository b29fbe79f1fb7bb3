package flowfile

import (
	"cmp"

	"gopkg.in/yaml.v3"

	"github.com/hyphae-run/hyphae/context/model"
)

// Network settings (docs/design.md, "Contained jobs"): a flow's or a job's
// `network: none` runs the job contained, in a network namespace of its
// own that has only loopback; `host` (the default) keeps the machine's
// network. A job's own setting wins over the flow's; a context with
// network none cuts every job of it, whatever the file says.

// network reads a flow's or a job's network: none or host.
func (p *parser) network(e entry, job string) string {
	v := e.v
	if !isNull(v) && v.Kind == yaml.ScalarNode && (v.Value == model.NetworkNone || v.Value == model.NetworkHost) {
		return v.Value
	}
	p.fail(v, job, "%s %s: want none (only loopback: the job reaches no other machine) or host (the default: the machine's network)",
		e.key, kindName(v))
	return ""
}

// NetworkOf is what job spec of flow f runs with: its own setting, else
// the flow's ("" = the host's).
func (f *File) NetworkOf(spec *JobSpec) string { return cmp.Or(spec.Network, f.Network) }
