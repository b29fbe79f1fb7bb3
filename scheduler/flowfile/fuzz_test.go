package flowfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// fuzzName is what the fuzzed file is called; fuzzDir, where its relative
// script_file paths start, does not exist, so the target reads no file of
// the repository and writes none.
const (
	fuzzName = "fuzz.yaml"
	fuzzDir  = "/nonexistent/hyphae-fuzz"
)

// parseSeeds: the flows of configs/flows, docs/design.md, "Flows" and README.md, and
// files the parser must refuse.
var parseSeeds = []string{
	"name: diamond\ncontext: 1\nenv: {GREETING: hello}\njobs:\n  fetch:\n    type: sh\n    script: |\n      echo \"items=3\" >> \"$HYPHAE_RESULT\"\n  count-words:\n    type: sh\n    needs: fetch\n    script: |\n      echo \"words=1\" >> \"$HYPHAE_RESULT\"\n  count-lines:\n    type: sh\n    needs: fetch\n    script: echo lines\n  report:\n    type: sh\n    needs: [count-words, count-lines]\n    script: |\n      echo \"$GREETING: $HYPHAE_IN_COUNT_WORDS_WORDS words\"\n",
	"# nightly\nname: nightly\ncontext: 1\nenv: {TARGET: /srv/data}\ntimeout: 1h\non_failure: stop\njobs:\n  snapshot:\n    type: sh\n    script: 'echo \"name=snap\" >> \"$HYPHAE_RESULT\"'\n    timeout: 10m\n    retries: 2\n  upload:\n    type: python\n    needs: [snapshot]\n    # runner: 12D3KooW...\n    script: |\n      import os\n      print(os.environ[\"HYPHAE_IN_SNAPSHOT_NAME\"])\n  cleanup:\n    type: sh\n    needs: upload\n    continue_on_error: true\n    script: 'echo prune'\n",
	"name: report\ncontext: 1\njobs:\n  measure: {type: sh, script: 'echo disk=1 >> \"$HYPHAE_RESULT\"'}\n  summarize:\n    type: sh\n    needs: measure\n    script_file: scripts/summarize.sh\n",
	"name: nightly\ncontext: 1\nenv: {TARGET: /srv/data}\njobs:\n  snapshot: {type: sh, script: 'echo \"name=snap-1\" >> \"$HYPHAE_RESULT\"', timeout: 10m, retries: 2}\n  upload:   {type: python, needs: [snapshot], runner: 12D3KooWAbc, script: 'import os'}\n",
	"name: nightly\ncontext: 1\njobs:\n  snapshot: {type: sh, runner: 'runner:7', script: 'echo \"name=snap-1\" >> \"\\$HYPHAE_RESULT\"'}\n  report:   {type: sh, needs: [snapshot], script: 'echo \"got \\$HYPHAE_IN_SNAPSHOT_NAME\"'}\n",
	"context: 3\nenv: {TARGET: /srv/data, PORT: 8080}\ntimeout: 1h\non_failure: wait\njobs:\n  s: {type: sh, script: x, timeout: 1500ms}\n  u:\n    type: rust\n    needs: s\n    runner: self\n    env: {MODE: fast, EMPTY: }\n    continue_on_error: true\n    timeout: 90\n    script: x\n",
	"env: &e {A: '1'}\njobs:\n  a: &a {type: sh, script: x, env: *e}\n  b: {type: sh, script: x, needs: [a], env: *e}\n",
	"base: &b {type: sh, script: x}\njobs:\n  a: *b\n  b: {<<: *b, needs: a}\n",
	"jobs:\n  a: {type: sh, script: x, needs: c}\n  b: {type: sh, script: x, needs: a}\n  c: {type: sh, script: x, needs: b}\n",
	"jobs:\n  a: {type: sh, script: x, needs: [a]}\n",
	"network: none\njobs:\n  a: {type: sh, script: x}\n  b: {type: sh, script: x, network: host, compensate: {type: sh, script: y, network: none}}\n  c: {type: sh, script: x, network: off}\n",
	"jobs:\n  a: {type: 'sh; rm -rf /', script: x}\n",
	"jobs:\n  a: {type: sh, script: x, nedds: [b]}\njobz: {}\n",
	"jobs:\n  a-b: {type: sh, script: x}\n  a_b: {type: sh, script: x}\n",
	"",
	"# only\n# comments\n",
	"jobs: {a: {type: sh, script: x}}\n---\nname: y\n",
	"a: &a [*a]\njobs: &j {x: *j}\n",
	"jobs:\n  a: {type: sh, script: x, env: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "}\n",
	"\x00\xff\xfe{[&*!|>%@`\r\n\t:",
	"\xfe\xff ) )00", // UTF-16: two paragraph separators, then U+3030
}

// FuzzParse guards what a user sees of a flow file: Parse never panics and
// returns promptly; a refused file gives no File and an Errors list whose
// every entry names the file, says something and points at a line that
// exists; an accepted file is a DAG a supervisor can run (unique usable job
// names, needs naming other jobs of the flow, a topological order); and the
// same bytes always give the same File, warnings and errors.
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := parseWithin(t, b, 10*time.Second)
		if r.err != nil {
			checkRefused(t, b, r)
		} else {
			checkAccepted(t, r.file)
		}
		for range 2 {
			if again := parseWithin(t, b, 10*time.Second); !reflect.DeepEqual(again, r) {
				t.Fatalf("parsing twice differs:\n%s\n---\n%s", r, again)
			}
		}
	})
}

// parsed is one Parse call's outcome, comparable with reflect.DeepEqual.
type parsed struct {
	file  *flowfile.File
	warns []flowfile.Warning
	err   error
}

func (r parsed) String() string {
	s := fmt.Sprintf("warnings %v\nerror %v", r.warns, r.err)
	if r.file != nil {
		s += fmt.Sprintf("\nflow %+v", *r.file)
		for _, j := range r.file.Jobs {
			s += fmt.Sprintf("\n  job %+v", *j)
		}
	}
	return s
}

// parseWithin fails t when Parse panics or takes longer than limit.
func parseWithin(t *testing.T, b []byte, limit time.Duration) parsed {
	t.Helper()
	done := make(chan parsed, 1)
	crash := make(chan string, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				crash <- fmt.Sprintf("%v\n%s", p, debug.Stack())
			}
		}()
		f, w, err := flowfile.Parse(b, fuzzName, fuzzDir)
		done <- parsed{f, w, err}
	}()
	select {
	case r := <-done:
		return r
	case p := <-crash:
		t.Fatalf("Parse panicked: %s", p)
	case <-time.After(limit):
		t.Fatalf("Parse took more than %v", limit)
	}
	return parsed{}
}

// checkRefused: no File, and every error says where and what.
func checkRefused(t *testing.T, b []byte, r parsed) {
	t.Helper()
	var es flowfile.Errors
	if r.file != nil || !errors.As(r.err, &es) || len(es) == 0 {
		t.Fatalf("refusal: File %v, error %T %v", r.file, r.err, r.err)
	}
	lines := lineCount(b)
	for i, e := range es {
		switch {
		case e.File != fuzzName, strings.TrimSpace(e.Msg) == "":
			t.Fatalf("error %d does not say where or what: %+v", i, e)
		case e.Line < 0, e.Line > lines, e.Job != "" && e.Line == 0:
			t.Fatalf("error %d points at line %d of a %d-line file: %v", i, e.Line, lines, e)
		case i > 0 && e.Line < es[i-1].Line:
			t.Fatalf("errors not in line order:\n%v", r.err)
		}
	}
	if !strings.HasPrefix(r.err.Error(), fuzzName) {
		t.Fatalf("message does not start with the file name: %q", r.err)
	}
}

// lineCount bounds the lines YAML sees in b (it breaks lines at CR, LF,
// NEL, LS and PS, and reads UTF-16 after a BOM), plus one for the end.
func lineCount(b []byte) int {
	if bytes.HasPrefix(b, []byte{0xfe, 0xff}) || bytes.HasPrefix(b, []byte{0xff, 0xfe}) {
		return len(b)/2 + 2 // any UTF-16 code unit may be a break
	}
	n := 2
	for _, r := range string(b) {
		if strings.ContainsRune("\n\r\u0085\u2028\u2029", r) {
			n++
		}
	}
	return n
}

// checkAccepted: the File is something a supervisor can run.
func checkAccepted(t *testing.T, f *flowfile.File) {
	t.Helper()
	switch {
	case f == nil || len(f.Jobs) == 0:
		t.Fatalf("accepted without jobs: %+v", f)
	case f.Name == "", f.Source != fuzzName, f.Timeout < 0:
		t.Fatalf("flow fields: %+v", f)
	case f.OnFailure != flowfile.OnFailureWait && f.OnFailure != flowfile.OnFailureStop:
		t.Fatalf("on_failure %q", f.OnFailure)
	}
	checkEnv(t, f.Env)
	byName := map[string]*flowfile.JobSpec{}
	envNames := map[string]string{}
	for _, j := range f.Jobs {
		env := flowfile.EnvName(j.Name)
		switch {
		case j.Name == "" || byName[j.Name] != nil || envNames[env] != "":
			t.Fatalf("job name %q empty, repeated or colliding with %q", j.Name, envNames[env])
		case j.Type == "", strings.TrimSpace(j.Script) == "", j.Line <= 0:
			t.Fatalf("job %q: type %q, script %q, line %d", j.Name, j.Type, j.Script, j.Line)
		case j.Retries < 0 || j.Retries > 1000, j.Timeout < 0:
			t.Fatalf("job %q: retries %d, timeout %v", j.Name, j.Retries, j.Timeout)
		}
		checkEnv(t, j.Env)
		byName[j.Name], envNames[env] = j, j.Name
	}
	if cycle := findCycle(f.Jobs, byName); cycle != "" {
		t.Fatalf("accepted a flow that cannot run: %s", cycle)
	}
}

func checkEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for k := range env {
		if k == "" || strings.HasPrefix(strings.ToUpper(k), "HYPHAE_") {
			t.Fatalf("accepted env var %q", k)
		}
	}
}

// findCycle describes a need that names no job, a job needing the same job
// twice, or a cycle of needs; "" when the jobs have a topological order.
func findCycle(jobs []*flowfile.JobSpec, byName map[string]*flowfile.JobSpec) string {
	state := map[string]int{} // 0 unseen, 1 on the path, 2 done
	var visit func(j *flowfile.JobSpec) string
	visit = func(j *flowfile.JobSpec) string {
		state[j.Name] = 1
		seen := map[string]bool{}
		for _, n := range j.Needs {
			switch {
			case byName[n] == nil:
				return fmt.Sprintf("job %q needs unknown job %q", j.Name, n)
			case seen[n]:
				return fmt.Sprintf("job %q needs %q twice", j.Name, n)
			case state[n] == 1:
				return fmt.Sprintf("cycle through %q -> %q", j.Name, n)
			case state[n] == 0:
				if s := visit(byName[n]); s != "" {
					return s
				}
			}
			seen[n] = true
		}
		state[j.Name] = 2
		return ""
	}
	for _, j := range jobs {
		if state[j.Name] == 0 {
			if s := visit(j); s != "" {
				return s
			}
		}
	}
	return ""
}
