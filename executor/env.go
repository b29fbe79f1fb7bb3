package executor

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
)

// defaultPath is the jobs' PATH when the agent has none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// jobEnv builds a job's clean environment: PATH and HOME (the job
// directory), then the flow's env_vars, then the job's env_vars, then the
// HYPHAE_* variables, each layer overriding the one before. Invalid names
// are skipped and reported.
func (r *Runner) jobEnv(ctx context.Context, a *attempt, dir string) (env, warnings []string) {
	vars := map[string]string{"PATH": agentPath(), "HOME": dir}
	if a.job.FlowID != 0 {
		f, err := r.st.Flows.LoadFlow(ctx, a.ctxID, a.job.FlowID)
		if err != nil {
			warnings = append(warnings, "flow env_vars not loaded: "+err.Error())
		} else {
			warnings = append(warnings, merge(vars, f.EnvVars, "flow")...)
		}
	}
	warnings = append(warnings, merge(vars, a.job.EnvVars, "job")...)
	j := a.job
	merge(vars, map[string]string{
		"HYPHAE_JOB_ID":     strconv.FormatUint(j.ID, 10),
		"HYPHAE_CONTEXT_ID": strconv.FormatUint(a.ctxID, 10),
		"HYPHAE_CALLER_ID":  strconv.FormatUint(j.CallerID, 10),
		"HYPHAE_ATTEMPT":    strconv.FormatInt(a.lease.Attempt, 10),
		"HYPHAE_RESULT":     resultPath(dir),
	}, "")
	eventFileEnv(vars, dir) // the event's payload as a file too (event_file.go)
	return flatten(vars), warnings
}

func agentPath() string {
	if p := os.Getenv("PATH"); p != "" {
		return p
	}
	return defaultPath
}

// merge copies src into dst, skipping names or values the OS cannot carry.
func merge(dst, src map[string]string, layer string) (warnings []string) {
	for k, v := range src {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.Contains(v, "\x00") {
			warnings = append(warnings, layer+" env var "+strconv.Quote(k)+" skipped: invalid name or value")
			continue
		}
		dst[k] = v
	}
	sort.Strings(warnings)
	return warnings
}

func flatten(vars map[string]string) []string {
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
