package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// inspectAgent starts an agent with context 1 and one finished job in it,
// whose key it returns.
func inspectAgent(t *testing.T) (dir, key string) {
	t.Helper()
	dir = newDataDir(t)
	startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	var j jobOut
	decode(t, hy(t, "job", "run", "-c", "1", "--script", "echo inspected", "--wait", "--json", "--data-dir", dir), &j)
	if j.Status != "finished" {
		t.Fatalf("job run -c 1 = %+v", j)
	}
	return dir, j.Key
}

// The context is the same flag everywhere (--context/-c, default
// $HYPHAE_CONTEXT), and the older positional forms still work.
func TestCLIContextFlagEverywhere(t *testing.T) {
	t.Parallel()
	dir, key := inspectAgent(t)
	forms := map[string][][]string{
		"job status": {{"job", "status", "-c", "1", key}, {"job", "status", "1", key}, {"job", "status", "--context", "1", key}},
		"job logs":   {{"job", "logs", "-c", "1", key}, {"job", "logs", "1", key}},
		"job list":   {{"job", "list", "-c", "1"}, {"job", "list", "1"}},
		"runner":     {{"runner", "list", "-c", "1"}, {"runner", "list", "1"}},
		"context":    {{"context", "show", "-c", "1"}, {"context", "show", "1"}},
		"flow list":  {{"flow", "list", "-c", "1"}, {"flow", "list", "1"}, {"flow", "list", "--context", "1"}},
	}
	for name, argvs := range forms {
		for _, argv := range argvs {
			if _, stderr, code := hyEnv(nil, nil, append(argv, "--data-dir", dir)...); code != 0 {
				t.Errorf("%s: hyphae %s: exit %d: %s", name, strings.Join(argv, " "), code, stderr)
			}
		}
	}
	// HYPHAE_CONTEXT stands in for the flag.
	out, stderr, code := hyEnv([]string{"HYPHAE_CONTEXT=1"}, nil, "job", "status", key, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "finished") {
		t.Fatalf("HYPHAE_CONTEXT=1 hyphae job status %s: exit %d\n%s%s", key, code, out, stderr)
	}
	// No context at all is bad usage that says how to give one.
	_, stderr, code = hyEnv(nil, nil, "job", "status", key, "--data-dir", dir)
	if code != 2 || !strings.Contains(stderr, "--context N") {
		t.Fatalf("job status without a context: exit %d, %q", code, stderr)
	}
}

// A missing flow, job, runner record or context is said as such, exit 1,
// not as the chain of calls that failed inside the agent; a list of a
// missing context is an error, not an empty list.
func TestCLINotFoundSaysWhat(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"flow", "status", "999", "-c", "1"}, "flow 999 not found in context 1"},
		{[]string{"flow", "cancel", "999", "-c", "1"}, "flow 999 not found in context 1"},
		{[]string{"job", "status", "-c", "1", "job:1:777"}, "job:1:777 not found in context 1"},
		{[]string{"job", "logs", "1", "job:1:777"}, "job:1:777 not found in context 1"},
		{[]string{"job", "status", "-c", "99", "job:99:1"}, "context 99 not found"},
		{[]string{"runner", "show", "-c", "1", "5"}, "runner:5 not found in context 1"},
		{[]string{"context", "show", "99"}, "context 99 not found"},
		{[]string{"job", "list", "99"}, "context 99 not found"},
		{[]string{"job", "list", "-c", "99", "--json"}, "context 99 not found"},
		{[]string{"runner", "list", "-c", "99"}, "context 99 not found"},
	} {
		_, stderr, code := hyEnv(nil, nil, append(c.args, "--data-dir", dir)...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "store.") {
			t.Errorf("hyphae %s: exit %d, stderr %q; want exit 1 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// job list shows each job's name, attempt, flow and duration; job status
// its attempt, times, duration and runner; job logs --tail N the last N
// lines only.
func TestCLIJobDetail(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	var j jobOut
	decode(t, hy(t, "job", "run", "-c", "1", "--name", "greet", "--retries", "2", "--wait", "--json", "--data-dir", dir,
		"--script", "for i in 1 2 3 4 5; do echo line$i; done"), &j)
	list := hy(t, "job", "list", "-c", "1", "--data-dir", dir)
	if !regexp.MustCompile(`(?m)^KEY +NAME +TYPE +STATUS +ATTEMPT +FLOW +RUNNER +CREATED +DURATION +ERROR$`).MatchString(list) ||
		!regexp.MustCompile(`(?m)^`+j.Key+` +greet +sh +finished +1/3 +- +- +\S+ \S+ +\d+s`).MatchString(list) {
		t.Fatalf("job list:\n%s", list)
	}
	status := hy(t, "job", "status", "-c", "1", j.Key, "--data-dir", dir)
	for _, want := range []string{"name:     greet", "attempt:  1/3", "created:  ", "ended:    ", "duration: ", "runner:   this agent"} {
		if !strings.Contains(status, want) {
			t.Errorf("job status lacks %q:\n%s", want, status)
		}
	}
	if out := hy(t, "job", "logs", "-c", "1", j.Key, "--tail", "2", "--data-dir", dir); out != "line4\nline5\n" {
		t.Fatalf("job logs --tail 2 = %q, want the last two lines", out)
	}
}

// flow status names each job's key (what job status and job logs take),
// and --dot / --mermaid draw the DAG.
func TestCLIFlowStatusKeysAndGraph(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	var f struct {
		ID   uint64 `json:"id"`
		Jobs []struct {
			Name string `json:"name"`
			Key  string `json:"key"`
		} `json:"jobs"`
	}
	decode(t, hy(t, "flow", "run", "../../configs/flows/diamond.yaml", "-c", "1", "--wait", "--json", "--data-dir", dir), &f)
	id := strconv.FormatUint(f.ID, 10)
	status := hy(t, "flow", "status", id, "-c", "1", "--data-dir", dir)
	for _, j := range f.Jobs {
		if j.Key == "" || !regexp.MustCompile(`(?m)`+regexp.QuoteMeta(j.Name)+` +completed +`+j.Key+` `).MatchString(status) {
			t.Errorf("flow status does not give %s's key %q:\n%s", j.Name, j.Key, status)
		}
	}
	if dot := hy(t, "flow", "status", id, "-c", "1", "--dot", "--data-dir", dir); strings.Count(dot, "->") != 4 {
		t.Errorf("flow status --dot:\n%s", dot)
	}
	if m := hy(t, "flow", "status", id, "-c", "1", "--mermaid", "--data-dir", dir); strings.Count(m, "-->") != 4 {
		t.Errorf("flow status --mermaid:\n%s", m)
	}
}

// hyphae stats counts a real agent's jobs per context.
func TestCLIStats(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	_, _, _ = hyTry("job", "run", "-c", "1", "--script", "exit 3", "--wait", "--data-dir", dir)
	out := hy(t, "stats", "--data-dir", dir)
	if !regexp.MustCompile(`(?m)^1 +2 +0 +0 +0 +1 +1 `).MatchString(out) {
		t.Fatalf("stats, want context 1 with 2 jobs, 1 finished, 1 failed:\n%s", out)
	}
	var st []struct {
		Context uint64         `json:"context"`
		Counts  map[string]int `json:"counts"`
	}
	decode(t, hy(t, "stats", "-c", "1", "--json", "--data-dir", dir), &st)
	if len(st) != 1 || st[0].Counts["error"] != 1 {
		t.Fatalf("stats -c 1 --json = %+v", st)
	}
}

// Shell completion offers the agent's contexts, a context's job keys and
// its flow ids.
func TestCLICompletionAsksTheAgent(t *testing.T) {
	t.Parallel()
	dir, key := inspectAgent(t)
	var f struct {
		ID uint64 `json:"id"`
	}
	decode(t, hy(t, "flow", "run", "../../configs/flows/diamond.yaml", "-c", "1", "--json", "--data-dir", dir), &f)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"job", "status", "-c", ""}, "1\n"},
		{[]string{"job", "status", "-c", "1", ""}, key + "\t"},
		{[]string{"job", "logs", "1", ""}, key + "\t"},
		{[]string{"flow", "status", "-c", "1", ""}, strconv.FormatUint(f.ID, 10) + "\tdiamond"},
	} {
		out := hy(t, append([]string{"__complete", "--data-dir", dir}, c.args...)...)
		if !strings.Contains(out, "\n"+c.want) && !strings.HasPrefix(out, c.want) {
			t.Errorf("complete %q:\n%s\nwant a line starting %q", c.args, out, c.want)
		}
	}
}

// job run --wait shows, on stderr, each status with the time waited and
// the job's log lines as they come, its stderr lines marked "E| "; stdout
// keeps only the result.
func TestCLIWaitStreamsLogLines(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	out, stderr, code := hyEnv(nil, nil, "job", "run", "-c", "1", "--wait", "--data-dir", dir,
		"--script", `echo first; echo "n=1" >> "$HYPHAE_RESULT"; echo second >&2`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"  | first\n", "  | E| second\n"} { // second went to stderr
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks the log line %q:\n%s", want, stderr)
		}
	}
	if !regexp.MustCompile(`(?m) finished \(\d+s\)$`).MatchString(stderr) {
		t.Errorf("stderr does not say how long the wait took:\n%s", stderr)
	}
	if strings.Contains(out, "| first") {
		t.Errorf("log lines went to stdout:\n%s", out)
	}
}

// flow run --wait and flow watch show the time since the wait began on
// each progress line, and the jobs' log lines after their names.
func TestCLIFlowWaitStreamsLogLines(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	_, stderr, code := hyEnv(nil, nil, "flow", "run", "../../configs/flows/diamond.yaml", "-c", "1", "--wait", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("flow run --wait: exit %d\n%s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d \+\d+s +\[\d/4\]  report +completed$`).MatchString(stderr) {
		t.Errorf("progress lines lack the time waited:\n%s", stderr)
	}
	if !strings.Contains(stderr, "  report | hello: 30 words, 6 lines\n") {
		t.Errorf("flow run --wait does not stream report's log line:\n%s", stderr)
	}
	var f struct {
		ID uint64 `json:"id"`
	}
	decode(t, hy(t, "flow", "run", "../../configs/flows/diamond.yaml", "-c", "1", "--json", "--data-dir", dir), &f)
	out := hy(t, "flow", "watch", strconv.FormatUint(f.ID, 10), "-c", "1", "--data-dir", dir)
	if !strings.Contains(out, "  report | hello: 30 words, 6 lines\n") {
		t.Errorf("flow watch does not stream report's log line:\n%s", out)
	}
}
