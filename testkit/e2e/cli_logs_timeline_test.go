package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// job logs marks the lines a job wrote on stderr ("E| "), puts each
// line's time before it with --timestamps, prints {ts, stream, line} with
// --json, and --tail keeps working with them; job status shows the job's
// attempts and timeline (and --json has them).
func TestCLIJobLogsStreamsAndTimeline(t *testing.T) {
	t.Parallel()
	dir, _ := inspectAgent(t)
	_, _, _ = hyTry("job", "run", "-c", "1", "--wait", "--json", "--data-dir", dir,
		"--script", "echo out-1; echo err-1 >&2; echo out-2; exit 4")
	var js []jobOut
	decode(t, hy(t, "job", "list", "-c", "1", "--limit", "1", "--json", "--data-dir", dir), &js)
	j := js[0]

	plain := hy(t, "job", "logs", "-c", "1", j.Key, "--data-dir", dir)
	for _, want := range []string{"out-1\n", "E| err-1\n", "out-2\n"} {
		if !strings.Contains(plain, want) {
			t.Errorf("job logs lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "E| out") {
		t.Errorf("job logs marks a stdout line as stderr:\n%s", plain)
	}
	stamped := hy(t, "job", "logs", "-c", "1", j.Key, "--timestamps", "--tail", "2", "--data-dir", dir)
	lines := strings.Split(strings.TrimSuffix(stamped, "\n"), "\n")
	ts := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z `)
	if len(lines) != 2 || !ts.MatchString(lines[0]) || !ts.MatchString(lines[1]) {
		t.Errorf("job logs --timestamps --tail 2: %q; want two lines, each after its time", lines)
	}

	var entries []struct{ TS, Stream, Line string }
	for _, l := range strings.Split(strings.TrimSpace(hy(t, "job", "logs", "-c", "1", j.Key, "--json", "--data-dir", dir)), "\n") {
		var e struct{ TS, Stream, Line string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("job logs --json line %q: %v", l, err)
		}
		entries = append(entries, e)
	}
	streams := map[string]string{} // stdout and stderr are two pipes: their order may vary
	for _, e := range entries {
		streams[e.Line] = e.Stream
		if e.TS == "" {
			t.Errorf("job logs --json: %+v has no time", e)
		}
	}
	if streams["out-1"] != "stdout" || streams["err-1"] != "stderr" || streams["out-2"] != "stdout" ||
		streams["[hyphae] exit status 4: err-1"] != "agent" {
		t.Errorf("job logs --json: %+v", entries)
	}

	status := hy(t, "job", "status", "-c", "1", j.Key, "--data-dir", dir)
	if !regexp.MustCompile(`(?m)^Attempts:\n +# +STATUS +QUEUED +STARTED +ENDED +DURATION +RUNNER +ERROR\n +1 +error `).MatchString(status) ||
		!regexp.MustCompile(`(?m)^Timeline:\n(.*\n)*.* created +attempt \d(.*\n)*.* started +attempt 1(.*\n)*.* error +attempt 1 .*exit status 4`).MatchString(status) {
		t.Errorf("job status lacks its attempts and timeline:\n%s", status)
	}
	var st struct {
		Key      string `json:"key"`
		Timeline []struct {
			Event string `json:"event"`
		} `json:"timeline"`
		Attempts []struct {
			Status string `json:"status"`
		} `json:"attempts"`
	}
	decode(t, hy(t, "job", "status", "-c", "1", j.Key, "--json", "--data-dir", dir), &st)
	if st.Key != j.Key || len(st.Attempts) != 1 || st.Attempts[0].Status != "error" || len(st.Timeline) < 3 {
		t.Errorf("job status --json: %+v", st)
	}
}
