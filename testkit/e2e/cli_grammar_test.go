package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// hyOK runs hyphae with env (and no other HYPHAE_ variable) on dir and
// fails t unless it exits 0.
func hyOK(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	out, stderr, code := hyEnv(env, nil, append(args, "--data-dir", dir)...)
	if code != 0 {
		t.Fatalf("%v hyphae %s: exit %d\n%s%s", env, strings.Join(args, " "), code, out, stderr)
	}
	return out
}

// flow schedule pause|resume|remove take -c and $HYPHAE_CONTEXT, as
// every command in a context does.
func TestCLIScheduleContextFlag(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	dir, _ := inspectAgent(t)
	file := writeFlow(t, "name: nightly\ncontext: 1\nschedule: '@every 24h'\njobs:\n  mark: {type: sh, script: 'true'}\n")
	hyOK(t, nil, dir, "flow", "schedule", "add", file)
	paused := func() bool {
		var s []scheduleOut
		decode(t, hyOK(t, nil, dir, "flow", "schedule", "list", "-c", "1", "--json"), &s)
		if len(s) != 1 {
			t.Fatalf("schedules %+v, want nightly alone", s)
		}
		return s[0].Paused
	}
	hyOK(t, nil, dir, "flow", "schedule", "pause", "nightly", "-c", "1")
	if !paused() {
		t.Fatal("flow schedule pause nightly -c 1 did not pause it")
	}
	hyOK(t, []string{"HYPHAE_CONTEXT=1"}, dir, "flow", "schedule", "resume", "nightly")
	if paused() {
		t.Fatal("HYPHAE_CONTEXT=1 flow schedule resume nightly did not resume it")
	}
	if _, stderr, code := hyEnv(nil, nil, "flow", "schedule", "remove", "nightly", "--data-dir", dir); code != 2 || !strings.Contains(stderr, "-c N") {
		t.Fatalf("flow schedule remove without a context: exit %d, %q; want 2 and how to give one", code, stderr)
	}
	hyOK(t, []string{"HYPHAE_CONTEXT=1"}, dir, "flow", "schedule", "remove", "nightly")
	if out := hyOK(t, nil, dir, "flow", "schedule", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("after remove: %s", out)
	}
}

// The follow: line job run and job retry print is a command that works
// pasted into a shell: it follows the job's log lines.
func TestCLIFollowHintPastes(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	dir, _ := inspectAgent(t)
	paste := func(out, want string) {
		t.Helper()
		_, hint, ok := strings.Cut(out, "  follow: ")
		hint = strings.TrimSpace(hint)
		if !ok || !strings.HasPrefix(hint, "hyphae job logs -f -c 1 job:") {
			t.Fatalf("no follow: hyphae job logs -f -c 1 KEY line in:\n%s", out)
		}
		cmd := exec.Command("sh", "-c", hint)
		cmd.Env = append(cmd.Environ(), "PATH="+filepath.Dir(bin)+":/usr/bin:/bin")
		got, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(got), want) {
			t.Fatalf("pasted %q: %v\n%s\nwant %q", hint, err, got, want)
		}
	}
	paste(hyOK(t, nil, dir, "job", "run", "-c", "1", "--script", "echo pasted-run"), "pasted-run")
	var failed jobOut
	out, _, _ := hyEnv(nil, nil, "job", "run", "-c", "1", "--script", "echo pasted-retry; exit 3", "--wait", "--json", "--data-dir", dir)
	decode(t, out, &failed)
	paste(hyOK(t, nil, dir, "job", "retry", "-c", "1", failed.Key), "pasted-retry")
}

// A job may be named by its number: job status 10 -c 1 is job:1:10; with
// no context given, the agent's only context; with several, a usage error
// saying to give -c.
func TestCLIJobByNumber(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	dir, key := inspectAgent(t)
	n := key[strings.LastIndex(key, ":")+1:]
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"job", "status", n, "-c", "1"}},
		{nil, []string{"job", "status", "1", n}},
		{[]string{"HYPHAE_CONTEXT=1"}, []string{"job", "status", n}},
		{nil, []string{"job", "status", n}}, // the agent's only context
	} {
		if out := hyOK(t, c.env, dir, c.args...); !strings.Contains(out, "job "+key+" in context 1: finished") {
			t.Fatalf("%v hyphae %s:\n%s\nwant %s", c.env, strings.Join(c.args, " "), out, key)
		}
	}
	if out := hyOK(t, nil, dir, "job", "logs", n, "-c", "1"); out != "inspected\n" {
		t.Fatalf("job logs %s -c 1 = %q", n, out)
	}
	hyOK(t, nil, dir, "context", "create", "--id", "2")
	_, stderr, code := hyEnv(nil, nil, "job", "status", n, "--data-dir", dir)
	if code != 2 || !strings.Contains(stderr, "give -c N") || !strings.Contains(stderr, "has 1, 2") {
		t.Fatalf("job status %s with two contexts and none given: exit %d, %q; want 2 and to give -c", n, code, stderr)
	}
	if _, stderr, code := hyEnv(nil, nil, "job", "status", "777", "-c", "1", "--data-dir", dir); code != 1 || !strings.Contains(stderr, "job 777 not found in context 1") {
		t.Fatalf("job status 777 -c 1: exit %d, %q; want 1 and not found", code, stderr)
	}
}

// flow list, runner list and actor list print a header, as job list does;
// job list filters by --flow, --name, --type with --status, as the
// dashboard does.
func TestCLIListHeadersAndFilters(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	dir, key := inspectAgent(t)
	var f struct {
		ID uint64 `json:"id"`
	}
	decode(t, hyOK(t, nil, dir, "flow", "run", "../../configs/flows/diamond.yaml", "-c", "1", "--wait", "--json"), &f)
	var self struct {
		PeerID string `json:"peer_id"`
	}
	decode(t, hyOK(t, nil, dir, "id", "--json"), &self)
	hyOK(t, nil, dir, "runner", "create", "-c", "1", "--peer", self.PeerID, "--type", "sh")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"flow", "list", "-c", "1"}, fmt.Sprintf(`^ID +NAME +STATUS +DONE +CREATED +ERROR\n%d +diamond +finished +4/4 `, f.ID)},
		{[]string{"runner", "list", "-c", "1"}, `^RUNNER +PEER +TYPES\nrunner:1 +` + self.PeerID + ` +sh\n$`},
		{[]string{"actor", "list"}, `^ID +PEER\n1 +` + self.PeerID + ` \(this agent\)\n`},
	} {
		if out := hyOK(t, nil, dir, c.args...); !regexp.MustCompile(c.want).MatchString(out) {
			t.Errorf("hyphae %s:\n%s\nwant %s", strings.Join(c.args, " "), out, c.want)
		}
		if out := hyOK(t, nil, dir, append(c.args, "--json")...); !strings.HasPrefix(out, "[") {
			t.Errorf("hyphae %s --json is not the bare list:\n%s", strings.Join(c.args, " "), out)
		}
	}
	type listed struct {
		Key  string `json:"key"`
		Name string `json:"name"`
		Flow uint64 `json:"flow_id"`
	}
	list := func(args ...string) []listed {
		var js []listed
		decode(t, hyOK(t, nil, dir, append([]string{"job", "list", "-c", "1", "--json"}, args...)...), &js)
		return js
	}
	flow := strconv.FormatUint(f.ID, 10)
	if js := list("--flow", flow, "--status", "finished"); len(js) != 4 || js[0].Flow != f.ID || js[3].Flow != f.ID {
		t.Fatalf("job list --flow %s --status finished = %+v, want the flow's 4 jobs", flow, js)
	}
	if js := list("--flow", flow, "--name", "count-"); len(js) != 2 || !strings.Contains(js[0].Name+js[1].Name, "count-words") {
		t.Fatalf("job list --flow %s --name count- = %+v, want count-words and count-lines", flow, js)
	}
	if js := list("--type", "sh", "--name", key); len(js) != 1 || js[0].Key != key {
		t.Fatalf("job list --type sh --name %s = %+v, want %s alone", key, js, key)
	}
	if _, stderr, code := hyEnv(nil, nil, "job", "list", "-c", "1", "--type", "python", "--data-dir", dir); code != 0 ||
		stderr != "no jobs in context 1 with type python\n" {
		t.Fatalf("job list --type python: exit %d, stderr %q", code, stderr)
	}
}
