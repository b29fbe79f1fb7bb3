package flowfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

func TestParseValid(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "up.py"), []byte("print('up')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "nightly.yaml")
	text := `context: 3
env: {TARGET: /srv/data, PORT: 8080}
timeout: 1h
on_failure: stop
jobs:
  snapshot: {type: sh, script: 'echo "name=snap-1" >> "$HYPHAE_RESULT"', timeout: 10m, retries: 2}
  upload:
    type: python
    needs: snapshot
    runner: 12D3KooWPeerBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB
    script_file: up.py
    env: {MODE: fast, EMPTY: }
    continue_on_error: true
    timeout: 90
    memory_mb: 512
    cpu: 0.5
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, warns, err := flowfile.ParseFile(path)
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	up := f.Job("upload")
	switch {
	case f.Name != "nightly", f.Context != 3, f.Timeout != time.Hour, f.OnFailure != flowfile.OnFailureStop:
		t.Fatalf("flow fields: %+v", f)
	case f.Env["PORT"] != "8080", len(f.Jobs) != 2, f.Jobs[0].Name != "snapshot":
		t.Fatalf("env/jobs: %+v", f)
	case f.Jobs[0].Timeout != 10*time.Minute, f.Jobs[0].Retries != 2:
		t.Fatalf("snapshot: %+v", f.Jobs[0])
	case up.Script != "print('up')\n", up.Needs[0] != "snapshot", up.Runner != "12D3KooWPeerBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB":
		t.Fatalf("upload: %+v", up)
	case !up.ContinueOnError, up.Timeout != 90*time.Second, up.Env["MODE"] != "fast", up.Line != 7:
		t.Fatalf("upload: %+v", up)
	case up.MemoryMB != 512, up.CPU != 0.5, f.Jobs[0].MemoryMB != 0, f.Jobs[0].CPU != 0:
		t.Fatalf("limits: upload %d MiB %g cores, snapshot %d MiB %g cores",
			up.MemoryMB, up.CPU, f.Jobs[0].MemoryMB, f.Jobs[0].CPU)
	}
}

func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blank.sh"), []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, text, want string }{
		{"unknown job key", `
jobs:
  snapshot: {type: sh, script: 'true'}
  upload:
    type: sh
    script: 'true'
    nedds: [snapshot]
`, `flow.yaml:7: job "upload": unknown key "nedds" (did you mean "needs"?)`},
		{"unknown flow key", "jobz: {}\n", `flow.yaml:1: unknown key "jobz" (did you mean "jobs"?)`},
		{"unknown needs", "jobs:\n  a: {type: sh, script: x}\n  b: {type: sh, script: x, needs: [c]}\n",
			`flow.yaml:3: job "b": needs unknown job "c"`},
		{"needs typo", "jobs:\n  build: {type: sh, script: x}\n  test: {type: sh, script: x, needs: biuld}\n",
			`flow.yaml:3: job "test": needs unknown job "biuld" (did you mean "build"?)`},
		{"self needs", "jobs:\n  a: {type: sh, script: x, needs: a}\n", `flow.yaml:2: job "a": needs itself`},
		{"needs twice", "jobs:\n  a: {type: sh, script: x}\n  b: {type: sh, script: x, needs: [a, a]}\n",
			`flow.yaml:3: job "b": needs "a" twice`},
		{"cycle", "jobs:\n  x: {type: sh, script: x}\n  a: {type: sh, script: x, needs: c}\n  b: {type: sh, script: x, needs: a}\n  c: {type: sh, script: x, needs: b}\n",
			`flow.yaml:3: cycle: a -> c -> b -> a`},
		{"two-cycle", "jobs:\n  a: {type: sh, script: x, needs: b}\n  b: {type: sh, script: x, needs: a}\n",
			`flow.yaml:2: cycle: a -> b -> a`},
		{"duplicate job", "jobs:\n  a: {type: sh, script: x}\n  b: {type: sh, script: x}\n  a: {type: sh, script: y}\n",
			`flow.yaml:4: duplicate job "a" (first at line 2)`},
		{"duplicate key", "jobs:\n  a:\n    type: sh\n    script: x\n    type: bash\n",
			`flow.yaml:5: job "a": duplicate key "type" (first at line 3)`},
		{"empty script", "jobs:\n  a: {type: sh, script: '  '}\n", `flow.yaml:2: job "a": empty script`},
		{"null script", "jobs:\n  a:\n    type: sh\n    script:\n", `flow.yaml:4: job "a": empty script`},
		{"no script", "jobs:\n  a: {type: sh}\n", `flow.yaml:2: job "a": no script: add ` + "`script:` or `script_file:`"},
		{"script and file", "jobs:\n  a: {type: sh, script: x, script_file: a.sh}\n",
			`flow.yaml:2: job "a": give script or script_file, not both`},
		{"missing file", "jobs:\n  a: {type: sh, script_file: nope.sh}\n",
			`flow.yaml:2: job "a": script_file "nope.sh": no such file or directory`},
		{"empty file", "jobs:\n  a: {type: sh, script_file: blank.sh}\n", `flow.yaml:2: job "a": script_file "blank.sh" is empty`},
		{"missing type", "jobs:\n  a: {script: x}\n", `flow.yaml:2: job "a": missing type`},
		{"bad duration", "jobs:\n  a: {type: sh, script: x, timeout: 10 minutes}\n",
			`flow.yaml:2: job "a": timeout "10 minutes": want a duration such as 30s, 10m or 1h30m`},
		{"negative duration", "timeout: -5s\njobs:\n  a: {type: sh, script: x}\n",
			`flow.yaml:1: timeout "-5s": want a duration`},
		{"bad retries", "jobs:\n  a: {type: sh, script: x, retries: two}\n",
			`flow.yaml:2: job "a": retries "two": want a whole number from 0 to 1000`},
		{"memory in words", "jobs:\n  a: {type: sh, script: x, memory_mb: 1GB}\n",
			`flow.yaml:2: job "a": memory_mb "1GB": want a whole number of MiB from 1 to 16777216, such as 512`},
		{"zero memory", "jobs:\n  a: {type: sh, script: x, memory_mb: 0}\n", `job "a": memory_mb "0": want a whole number of MiB`},
		{"fractional memory", "jobs:\n  a: {type: sh, script: x, memory_mb: 1.5}\n", `job "a": memory_mb "1.5": want a whole number of MiB`},
		{"cpu percent", "jobs:\n  a: {type: sh, script: x, cpu: 50%}\n",
			`flow.yaml:2: job "a": cpu "50%": want a number of cores from 0.01 to 4096, such as 0.5 or 2`},
		{"cpu as text", "jobs:\n  a: {type: sh, script: x, cpu: '2'}\n", `job "a": cpu "2": want a number of cores`},
		{"negative cpu", "jobs:\n  a: {type: sh, script: x, cpu: -1}\n", `job "a": cpu "-1": want a number of cores`},
		{"tiny cpu", "jobs:\n  a: {type: sh, script: x, cpu: 0.001}\n", `job "a": cpu "0.001": want a number of cores`},
		{"cpu not a number", "jobs:\n  a: {type: sh, script: x, cpu: .nan}\n", `job "a": cpu ".nan": want a number of cores`},
		{"memory typo", "jobs:\n  a: {type: sh, script: x, memroy_mb: 50}\n", `job "a": unknown key "memroy_mb" (did you mean "memory_mb"?)`},
		{"bad bool", "jobs:\n  a: {type: sh, script: x, continue_on_error: maybe}\n",
			`flow.yaml:2: job "a": continue_on_error "maybe": want true or false`},
		{"bad name", "jobs:\n  up load: {type: sh, script: x}\n", `flow.yaml:2: job "up load": bad name`},
		{"name collision", "jobs:\n  a-b: {type: sh, script: x}\n  a_b: {type: sh, script: x}\n",
			`flow.yaml:3: job "a_b": name collides with job "a-b": both give HYPHAE_IN_A_B_*`},
		{"reserved env", "env: {HYPHAE_X: 1}\njobs:\n  a: {type: sh, script: x}\n",
			`flow.yaml:1: env "HYPHAE_X": HYPHAE_* names are reserved for the agent`},
		{"bad env name", "jobs:\n  a: {type: sh, script: x, env: {1X: y}}\n", `flow.yaml:2: job "a": env "1X": not a valid variable name`},
		{"bad on_failure", "on_failure: never\njobs:\n  a: {type: sh, script: x}\n", `flow.yaml:1: on_failure "never": want wait or stop`},
		{"bad context", "context: 0\njobs:\n  a: {type: sh, script: x}\n", `flow.yaml:1: context "0": want a context id, 1 or more`},
		{"bad network", "jobs:\n  a: {type: sh, script: x, network: off}\n",
			`flow.yaml:2: job "a": network "off": want none (only loopback: the job reaches no other machine) or host`},
		{"network not text", "network: [none]\njobs:\n  a: {type: sh, script: x}\n", `flow.yaml:1: network a list: want none`},
		{"empty network", "jobs:\n  a:\n    type: sh\n    script: x\n    network:\n", `flow.yaml:5: job "a": network nothing: want none`},
		{"bad compensation network", "jobs:\n  a: {type: sh, script: x, compensate: {type: sh, script: y, network: lan}}\n",
			`flow.yaml:2: job "a": network "lan": want none`},
		{"bad runner", "jobs:\n  a: {type: sh, script: x, runner: 'runner:abc'}\n",
			`flow.yaml:2: job "a": runner "runner:abc": want self, a peer ID (12D3KooW…) or runner:<id>`},
		{"needs not a list", "jobs:\n  a: {type: sh, script: x, needs: {b: 1}}\n", `flow.yaml:2: job "a": needs: want a job name or a list`},
		{"job not a mapping", "jobs:\n  a: echo hi\n", `flow.yaml:2: job "a": want a mapping with type and script, got "echo hi"`},
		{"no jobs", "name: x\n", "flow.yaml:1: no jobs"},
		{"empty jobs", "jobs: {}\n", "flow.yaml:1: jobs: empty"},
		{"empty file", "", "flow.yaml: empty file"},
		{"not a mapping", "- a\n- b\n", "flow.yaml:1: want a mapping"},
		{"syntax", "jobs:\n  a: {type: sh\n", "flow.yaml:1: YAML: did not find expected ',' or '}'"},
		{"two documents", "jobs: {a: {type: sh, script: x}}\n---\nname: y\n", "more than one YAML document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := flowfile.Parse([]byte(c.text), "flow.yaml", dir)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error:\n  %v\nwant it to contain:\n  %s", err, c.want)
			}
			var es flowfile.Errors
			if !errors.As(err, &es) {
				t.Fatalf("error is %T, want flowfile.Errors", err)
			}
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	_, _, err := flowfile.Parse([]byte("jobs:\n  a: {type: sh, script: x, nedds: b}\n  b: {script: ''}\n"), "f.yaml", "")
	var es flowfile.Errors
	if !errors.As(err, &es) || len(es) != 3 {
		t.Fatalf("want 3 problems (unknown key, missing type, empty script), got:\n%v", err)
	}
	if es[0].Line != 2 || es[1].Line != 3 {
		t.Fatalf("problems not in line order:\n%v", err)
	}
}

func TestWarnings(t *testing.T) {
	f, warns, err := flowfile.Parse([]byte("timeout: 1m\njobs:\n  a: {type: rust, script: x, timeout: 2m}\n  b: {type: sh, script: x, timeout: 1500ms}\n"), "w.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.Contains(warns[0].String(), `w.yaml:3: job "a": timeout 2m0s is longer than the flow's timeout 1m0s`) ||
		!strings.Contains(warns[1].String(), "rounds up") {
		t.Fatalf("warnings %v", warns)
	}
	tw := flowfile.CheckTypes(f, []string{"sh", "python"})
	if len(tw) != 1 || tw[0].String() != `w.yaml:3: job "a": no known runner serves script type "rust" (known: python, sh)` {
		t.Fatalf("type warnings %v", tw)
	}
	if flowfile.CheckTypes(f, nil) != nil {
		t.Fatal("no known types: want no warnings")
	}
}

func TestEnvNames(t *testing.T) {
	for in, want := range map[string]string{"fetch-data": "FETCH_DATA", "file.name": "FILE_NAME", "ok": "OK", "a b/c": "A_B_C"} {
		if got := flowfile.EnvName(in); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := flowfile.InputVar("snapshot", "name"); got != "HYPHAE_IN_SNAPSHOT_NAME" {
		t.Errorf("InputVar = %q", got)
	}
}

func TestExampleFlows(t *testing.T) {
	files, _ := filepath.Glob("../../configs/flows/*.yaml")
	if len(files) == 0 {
		t.Skip("no example flows")
	}
	for _, f := range files {
		if _, warns, err := flowfile.ParseFile(f); err != nil || len(warns) > 0 {
			t.Errorf("%s: %v %v", f, err, warns)
		}
	}
}

func TestValidateBuiltFile(t *testing.T) {
	f := &flowfile.File{Jobs: []*flowfile.JobSpec{
		{Name: "a", Type: "sh", Script: "x", Needs: []string{"b"}},
		{Name: "b", Type: "sh", Script: "x", Needs: []string{"a"}},
	}}
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "cycle: a -> b -> a") {
		t.Fatalf("Validate: %v", err)
	}
	f.Jobs[1].Needs = nil
	if err := f.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	f.Jobs = append(f.Jobs, &flowfile.JobSpec{Name: "a", Type: "sh"})
	if err := f.Validate(); err == nil {
		t.Fatal("duplicate and scriptless job: want errors")
	}
}

// A script_file that is a FIFO, a directory or too big is refused with
// why, instead of blocking the parse or reading without end.
func TestScriptFileMustBeARegularFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("#", flowfile.MaxScriptFile) + "\necho hi\n"
	if err := os.WriteFile(filepath.Join(dir, "big.sh"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"fifo": "not a regular file", "sub": "not a regular file", "big.sh": "over 1048576 bytes"} {
		_, _, err := flowfile.Parse([]byte("jobs:\n  a: {type: sh, script_file: "+file+"}\n"), "flow.yaml", dir)
		if err == nil || !strings.Contains(err.Error(), `flow.yaml:2: job "a": script_file "`+file+`": `+want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
}
