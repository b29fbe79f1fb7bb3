package executor

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaultsAndValidate(t *testing.T) {
	d := Config{DataDir: "/tmp/x"}.withDefaults()
	if d.Concurrency != runtime.NumCPU() || d.Lease != 30*time.Second || d.Heartbeat != 10*time.Second ||
		d.StdoutCap != 64<<10 || d.DefaultTimeout != time.Hour || d.KillGrace != 5*time.Second || d.RunnerID == "" {
		t.Fatalf("defaults %+v", d)
	}
	if (Config{DataDir: "/tmp/x"}).withDefaults().RunnerID != d.RunnerID {
		t.Fatal("default RunnerID is not stable")
	}
	for name, c := range map[string]Config{
		"no data dir":        {},
		"heartbeat >= lease": {DataDir: "d", Lease: time.Second, Heartbeat: time.Second},
		"runner id space":    {DataDir: "d", RunnerID: "a b"},
		"empty executor":     {DataDir: "d", Executors: map[string][]string{"v": nil}},
		"executor colon":     {DataDir: "d", Executors: map[string][]string{"a:b": {"x"}}},
		"negative":           {DataDir: "d", Concurrency: -1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (Config{DataDir: "d"}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBackoffDoublesAndCaps(t *testing.T) {
	r := &Runner{cfg: Config{RetryBackoff: time.Second, RetryBackoffMax: 5 * time.Second}}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i, w := range want {
		if got := r.backoff(int64(i + 1)); got != w {
			t.Errorf("attempt %d: %v, want %v", i+1, got, w)
		}
	}
}

func TestParseResultLines(t *testing.T) {
	kv, bad := parseResult([]byte("a=1\r\n\n# c\nb = x=y \nnope\n=v\nlast=no newline"))
	if kv["a"] != "1" || kv["b"] != " x=y " || kv["last"] != "no newline" || len(kv) != 3 {
		t.Fatalf("kv %v", kv)
	}
	if len(bad) != 2 || !strings.HasPrefix(bad[0], "line 5:") || !strings.HasPrefix(bad[1], "line 6:") {
		t.Fatalf("bad %v", bad)
	}
	if s := describeBad([]string{"1", "2", "3", "4"}); !strings.HasPrefix(s, "4 bad result line(s) ignored: 1; 2; 3; …") {
		t.Fatal(s)
	}
}

// A python3 on PATH that is a wrapper script is asked once for the real
// interpreter.
func TestResolvePythonFollowsWrapper(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real-python")
	if err := os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\n[ \"$1\" = -c ] && echo " + target + "\n"
	if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	got, err := resolvePython(slog.New(slog.DiscardHandler))
	if err != nil || got != target {
		t.Fatalf("resolved %q %v", got, err)
	}
}

func TestInterpCommandPlaceholder(t *testing.T) {
	got, _ := interp{argv: []string{"v", "run", "{file}"}}.command(nil, "/j/script.v")
	if strings.Join(got, " ") != "v run /j/script.v" {
		t.Fatal(got)
	}
	got, _ = interp{argv: []string{"osis"}}.command(nil, "/j/s")
	if strings.Join(got, " ") != "osis /j/s" {
		t.Fatal(got)
	}
}
