package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
)

// job status of a job run with --retries 2 whose script fails twice, then
// succeeds: three attempts, the first two error with their end, duration
// and error, the third finished (the failed ones used to show "started",
// with no end, for ever); --json has the same attempts.
func TestCLIJobStatusShowsEveryRetriedAttempt(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	count := filepath.Join(t.TempDir(), "count") // the agent's own jobs run on the host
	script := fmt.Sprintf(`n=$(cat %[1]q 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]q
[ $n -ge 3 ] || { echo "failing $n" >&2; exit 7; }`, count)
	var j jobOut
	decode(t, hy(t, "job", "run", "-c", "1", "--retries", "2", "--wait", "--json", "--data-dir", dir, "--script", script), &j)
	if j.Status != "finished" || j.Attempt != 3 {
		t.Fatalf("job run: %+v; want finished at attempt 3", j)
	}
	status := hy(t, "job", "status", "-c", "1", j.Key, "--data-dir", dir)
	clock := `\d\d:\d\d:\d\d\.\d{3}`
	for n, row := range []string{
		`(?m)^ +1 +error +` + clock + ` +` + clock + ` +` + clock + ` +[0-9.]+µ?m?s +\S+ +attempt 1: exit status 7`,
		`(?m)^ +2 +error +` + clock + ` +` + clock + ` +` + clock + ` +[0-9.]+µ?m?s +\S+ +attempt 2: exit status 7`,
		`(?m)^ +3 +finished +` + clock + ` +` + clock + ` +` + clock + ` +[0-9.]+µ?m?s +\S+ *$`,
	} {
		if !regexp.MustCompile(row).MatchString(status) {
			t.Errorf("job status lacks attempt %d ended (%s):\n%s", n+1, row, status)
		}
	}
	if regexp.MustCompile(`(?m)^ +\d +started `).MatchString(status) {
		t.Errorf("job status shows an attempt still started:\n%s", status)
	}
	var st struct {
		Attempts []struct {
			Attempt    int64  `json:"attempt"`
			Status     string `json:"status"`
			StartedMS  int64  `json:"started_ms"`
			EndedMS    int64  `json:"ended_ms"`
			DurationMS int64  `json:"duration_ms"`
			Error      string `json:"error"`
		} `json:"attempts"`
	}
	decode(t, hy(t, "job", "status", "-c", "1", j.Key, "--json", "--data-dir", dir), &st)
	if len(st.Attempts) != 3 {
		t.Fatalf("job status --json attempts %+v; want 3", st.Attempts)
	}
	for i, a := range st.Attempts {
		want := "error"
		if i == 2 {
			want = "finished"
		}
		if a.Attempt != int64(i+1) || a.Status != want || a.EndedMS == 0 || a.EndedMS-a.StartedMS != a.DurationMS ||
			(want == "error") != (a.Error != "") {
			t.Errorf("job status --json attempt %d = %+v; want %s, ended", i+1, a, want)
		}
	}
}
