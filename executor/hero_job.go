package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// heroJob is the part of hero:job:<id> the worker reads.
type heroJob struct {
	id, script, typ string
	env             map[string]string
	timeout         time.Duration
	status          string
}

// parseHeroJob reads a hero job hash; script_type defaults to sh, timeout
// (integer seconds, or a Go duration like "90s") to the runner default.
func (r *Runner) parseHeroJob(id string, h model.Hash) (heroJob, error) {
	j := heroJob{id: id, script: h["script"], typ: h["script_type"], status: h["status"],
		timeout: r.cfg.DefaultTimeout}
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
	return j, nil
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

func heroEnv(hj heroJob, worker, dir string) (env, warnings []string) {
	vars := map[string]string{"PATH": agentPath(), "HOME": dir}
	warnings = merge(vars, hj.env, "job")
	merge(vars, map[string]string{"HYPHAE_JOB_ID": hj.id, "HYPHAE_WORKER_ID": worker,
		"HYPHAE_ATTEMPT": "1", "HYPHAE_RESULT": resultPath(dir)}, "")
	return flatten(vars), warnings
}

// heroReply is the JSON pushed on hero:reply:<id>.
type heroReply struct {
	ID       string            `json:"id"`
	Status   string            `json:"status"`
	Output   string            `json:"output"`
	Error    string            `json:"error"`
	ExitCode int               `json:"exit_code"`
	Result   map[string]string `json:"result"`
}

// heroAnswer writes a hero job's final state and pushes the reply.
func (r *Runner) heroAnswer(id string, out outcome) {
	rep := heroReply{ID: id, Status: heroFinished, Output: out.result[keyStdout], Error: out.reason,
		ExitCode: -1, Result: out.result}
	if out.reason != "" {
		rep.Status = heroError
	}
	if n, err := strconv.Atoi(out.result[keyExitCode]); err == nil {
		rep.ExitCode = n
	}
	if rep.Result == nil {
		rep.Result = map[string]string{}
	}
	b, _ := json.Marshal(rep)
	fields := model.Hash{"status": rep.Status, "output": rep.Output, "error": rep.Error,
		"exit_code": strconv.Itoa(rep.ExitCode), "result": encodeResult(rep.Result),
		"updated_at": store.HeroTime(time.Now())}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := r.st.HeroFinish(ctx, r.cfg.WorkerID, id, fields, string(b)); err != nil {
		r.log.Warn("executor: hero answer", "id", id, "err", err)
	}
}
