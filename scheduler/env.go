package scheduler

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
			out[InputVar(need, k)] = v
		}
	}
	for k, v := range r.results[n.comp] { // a compensation: its job's result
		out[ResultVar(k)] = v
	}
	return out
}

// InputVar is the env var through which result key of job reaches the
// jobs that need it: HYPHAE_IN_<JOB>_<KEY>.
func InputVar(job, key string) string {
	return "HYPHAE_IN_" + EnvName(job) + "_" + EnvName(key)
}
