package flowfile

import (
	"encoding/json"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hyphae-run/hyphae/context/model"
)

// OnSpec is a flow file's `on:`: the events that start a run of the flow
// once its trigger is installed (flow.trigger.add). One event starts at
// most one run per trigger.
type OnSpec struct {
	Event string            `json:"event"`           // the event name, such as order.created
	Where map[string]string `json:"where,omitempty"` // payload field (dotted path) → value it must have
	// Correlation is the payload field whose value becomes the run's
	// correlation id; "" = the event's own correlation_id.
	Correlation string `json:"correlation,omitempty"`
}

var onKeys = []string{"event", "where", "correlation", "flow_finished", "job_ended", "status"}

// on reads `on:`. flow_finished: X is short for event flow.finished where
// flow = X, job_ended: X (status: S) for event job.ended where job = X
// (and status = S): the agent publishes both as flows and their jobs end.
func (p *parser) on(e entry) *OnSpec {
	if e.v.Kind != yaml.MappingNode {
		p.fail(e.v, "", "on: want a mapping such as {event: order.created, where: {kind: book}}, got %s", kindName(e.v))
		return nil
	}
	o := &OnSpec{Where: map[string]string{}}
	sources, status := 0, ""
	for _, f := range p.entries(e.v, "", "key") {
		switch f.key {
		case "event":
			o.Event, sources = p.str(f, ""), sources+1
		case "where":
			p.where(f, o.Where)
		case "correlation":
			o.Correlation = p.str(f, "")
		case "flow_finished":
			o.Event, o.Where["flow"], sources = EventFlowFinished, p.str(f, ""), sources+1
		case "job_ended":
			o.Event, o.Where["job"], sources = EventJobEnded, p.str(f, ""), sources+1
		case "status":
			status = p.str(f, "")
		default:
			p.unknownKey(f, "", onKeys)
		}
	}
	p.onSources(e, o, sources, status)
	if len(o.Where) == 0 {
		o.Where = nil
	}
	return o
}

// onSources checks that `on:` names one source, and applies status.
func (p *parser) onSources(e entry, o *OnSpec, sources int, status string) {
	if sources != 1 {
		p.fail(e.k, "", "on: give one of event, flow_finished or job_ended")
		return
	}
	if status != "" {
		if o.Event != EventFlowFinished && o.Event != EventJobEnded {
			p.fail(e.k, "", "on: status goes with flow_finished or job_ended")
		}
		o.Where["status"] = status
	}
	if err := model.CheckEventName(o.Event); err != nil {
		p.fail(e.k, "", "on: %v", err)
	}
}

// where reads a mapping of payload field → scalar value.
func (p *parser) where(e entry, into map[string]string) {
	if e.v.Kind != yaml.MappingNode {
		p.fail(e.v, "", "on: where: want a mapping of payload field → value, got %s", kindName(e.v))
		return
	}
	for _, kv := range p.entries(e.v, "", "field") {
		if kv.v.Kind != yaml.ScalarNode {
			p.fail(kv.v, "", "on: where %q: want a string, number or boolean, got %s", kv.key, kindName(kv.v))
			continue
		}
		into[kv.key] = kv.v.Value
	}
}

// WaitForSpec is a job's `wait_for:`: the step waits, parked in Redis,
// for an event named Event whose payload field Correlation (its
// correlation_id when the payload lacks it, or when Correlation is "")
// equals the run's value of that field, for at most Timeout; then it
// fails, and the flow's failure path (compensation) runs.
type WaitForSpec struct {
	Event       string        `json:"event"`
	Correlation string        `json:"correlation,omitempty"`
	Timeout     time.Duration `json:"timeout"`
}

var waitForKeys = []string{"event", "correlation", "timeout"}

// waitFor reads `wait_for:`.
func (p *parser) waitFor(e entry, job string) *WaitForSpec {
	if e.v.Kind != yaml.MappingNode {
		p.fail(e.v, job, "wait_for: want {event: NAME, correlation: FIELD, timeout: 30m}, got %s", kindName(e.v))
		return nil
	}
	w := &WaitForSpec{}
	for _, f := range p.entries(e.v, job, "key") {
		switch f.key {
		case "event":
			w.Event = p.str(f, job)
		case "correlation":
			w.Correlation = p.str(f, job)
		case "timeout":
			w.Timeout = p.duration(f, job)
		default:
			p.unknownKey(f, job, waitForKeys)
		}
	}
	if err := model.CheckEventName(w.Event); err != nil {
		p.fail(e.k, job, "wait_for: %v", err)
	}
	if w.Timeout <= 0 {
		p.fail(e.k, job, "wait_for: timeout is required (such as 30m): a wait must end")
	}
	return w
}

// WaitForType is the script type of a wait_for step's job: the store's
// store.WaitForType, which this package cannot import (the scheduler's
// tests check that the two agree).
const WaitForType = "wait_for"

// waitStep makes job j a wait_for step: a job of type WaitForType, kept
// on this agent, whose script is the spec (JSON). The scheduler's event
// loop parks it (scheduler/wait_for.go); no runner or process holds it.
func (p *parser) waitStep(j *JobSpec, at *yaml.Node, scripted bool) {
	if scripted || j.Type != "" || j.Sleep > 0 || j.Delay > 0 || !j.RunAt.IsZero() {
		p.fail(at, j.Name, "a wait_for step only waits: give it no type, script, script_file, sleep, delay or run_at")
	}
	if j.WaitFor == nil {
		return
	}
	b, _ := json.Marshal(WaitScript{Event: j.WaitFor.Event, Correlation: j.WaitFor.Correlation,
		TimeoutMs: j.WaitFor.Timeout.Milliseconds()})
	j.Type, j.Script, j.Runner = WaitForType, string(b), "self"
}

// WaitScript is a wait_for job's script: its spec.
type WaitScript struct {
	Event       string `json:"event"`
	Correlation string `json:"correlation,omitempty"`
	TimeoutMs   int64  `json:"timeout_ms"`
}

// Event names the agent publishes itself, for `on: {flow_finished: …}`
// and `on: {job_ended: …}`.
const (
	EventFlowFinished = "flow.finished"
	EventJobEnded     = "job.ended"
)
