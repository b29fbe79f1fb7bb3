package scheduler

import "github.com/hyphae-run/hyphae/scheduler/flowfile"

// jobEnv is what a job runs with: flow env ∪ job env ∪
// HYPHAE_IN_<NEED>_<KEY> for every result key of every job it needs (and
// for a compensation HYPHAE_RESULT_<KEY> of the job it undoes).
func (r *flowRun) jobEnv(n *node, own map[string]string) map[string]string {
	out := make(map[string]string, len(r.env)+len(own))
	for k, v := range r.env {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	for _, need := range n.needs {
		for k, v := range r.results[need] {
			out[flowfile.InputVar(need, k)] = v
		}
	}
	for k, v := range r.results[n.comp] { // a compensation: its job's result
		out[flowfile.ResultVar(k)] = v
	}
	return out
}
