package executor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// heroJob is the part of hero:job:<id> the worker reads.
type heroJob struct {
	id, script, typ string
	env             map[string]string
	timeout         time.Duration
	status          string
	retries         int      // retries after the first attempt
	attempts        int      // attempts started so far (written by workers)
	concurrent      bool     // may run beside the worker's other jobs
	deps            []string // hero job ids that must finish first
	logPath         string   // where the job's output is written, or ""
}

// parseHeroJob reads a hero job hash; script_type defaults to sh, timeout
// (integer seconds, or a Go duration like "90s") to the runner default.
func (r *Runner) parseHeroJob(id string, h model.Hash) (heroJob, error) {
	j := heroJob{id: id, script: h["script"], typ: h["script_type"], status: h["status"],
		timeout: r.cfg.DefaultTimeout, logPath: strings.TrimSpace(h["log_path"])}
	if j.typ == "" {
		j.typ = "sh"
	}
	if v := h["env_vars"]; v != "" {
		if err := json.Unmarshal([]byte(v), &j.env); err != nil {
			return j, fmt.Errorf("env_vars: want a JSON object of strings: %w", err)
		}
	}
	if v := strings.TrimSpace(h["timeout"]); v != "" && v != "0" {
		d, err := parseHeroTimeout(v)
		if err != nil {
			return j, err
		}
		j.timeout = d
	}
	var err error
	if j.retries, err = heroCount(h, "retries"); err != nil {
		return j, err
	}
	if j.attempts, err = heroCount(h, "attempts"); err != nil {
		return j, err
	}
	if j.concurrent, err = heroConcurrent(h["concurrent"]); err != nil {
		return j, err
	}
	j.deps, err = heroDeps(id, h)
	return j, err
}

func parseHeroTimeout(v string) (time.Duration, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		return time.Duration(min(n, int64(maxTimeout/time.Second))) * time.Second, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("timeout %q: want seconds or a duration like 90s", v)
}

// heroCount reads a non-negative integer field; absent or empty is 0.
func heroCount(h model.Hash, field string) (int, error) {
	v := strings.TrimSpace(h[field])
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: want a whole number >= 0", field, v)
	}
	return n, nil
}

// heroConcurrent reads "concurrent". The seed's clients always write it;
// absent means concurrent, as hero jobs ran before the field was read.
func heroConcurrent(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, fmt.Errorf("concurrent %q: want true or false", v)
}

// heroDeps joins "prerequisites" (a JSON array of job ids) and
// "dependencies" (a list of job ids: a JSON array, or ids separated by
// commas or spaces), without repeats.
func heroDeps(id string, h model.Hash) ([]string, error) {
	var deps []string
	for _, field := range []string{"prerequisites", "dependencies"} {
		ids, err := heroIDList(h[field])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		for _, d := range ids {
			if d == id {
				return nil, fmt.Errorf("%s: the job depends on itself", field)
			}
			if !slices.Contains(deps, d) {
				deps = append(deps, d)
			}
		}
	}
	return deps, nil
}

func heroIDList(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "null" {
		return nil, nil
	}
	if strings.HasPrefix(v, "[") {
		var ids []string
		if err := json.Unmarshal([]byte(v), &ids); err != nil {
			return nil, fmt.Errorf("want a JSON array of job ids: %w", err)
		}
		return slices.DeleteFunc(ids, func(s string) bool { return strings.TrimSpace(s) == "" }), nil
	}
	return strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' }), nil
}

func heroEnv(hj heroJob, worker, dir string) (env, warnings []string) {
	vars := map[string]string{"PATH": agentPath(), "HOME": dir}
	warnings = merge(vars, hj.env, "job")
	merge(vars, map[string]string{"HYPHAE_JOB_ID": hj.id, "HYPHAE_WORKER_ID": worker,
		"HYPHAE_ATTEMPT": strconv.Itoa(hj.attempts), "HYPHAE_RESULT": resultPath(dir)}, "")
	return flatten(vars), warnings
}
