package cli

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// `job run --file t.py` runs as python, not sh, unless --type says so.
func TestInferTypeFromTheFileExtension(t *testing.T) {
	served := []string{"sh", "bash", "python", "rust"}
	for file, want := range map[string]string{
		"t.py": "python", "T.PY": "python", "backup.sh": "sh", "x.bash": "bash",
		"main.rust": "rust", "notes.txt": "sh", "noext": "sh", "dir.v/run": "sh",
	} {
		if got := inferType(file, served); got != want {
			t.Errorf("inferType(%q) = %q, want %q", file, got, want)
		}
	}
}

// --in counts from now and never rounds down to an earlier second; --at
// takes RFC 3339 or unix seconds; both at once, or nonsense, are usage
// errors.
func TestJobRunAtAndIn(t *testing.T) {
	now := time.Unix(1_800_000_000, 500_000_000)
	cases := []struct {
		f    jobRunFlags
		want int64
		bad  bool
	}{
		{f: jobRunFlags{in: 10 * time.Minute}, want: 1_800_000_601},
		{f: jobRunFlags{at: "1800003600"}, want: 1_800_003_600},
		{f: jobRunFlags{at: "2027-01-15T08:00:00+01:00"}, want: time.Date(2027, 1, 15, 7, 0, 0, 0, time.UTC).Unix()},
		{f: jobRunFlags{at: "tomorrow"}, bad: true},
		{f: jobRunFlags{at: "1800003600", in: time.Minute}, bad: true},
		{f: jobRunFlags{in: -time.Minute}, bad: true},
	}
	for _, c := range cases {
		var p wire.JobRunParams
		err := c.f.when(&p, now)
		if c.bad != (err != nil) || p.RunAt != c.want {
			t.Errorf("at=%q in=%v: run_at %d, err %v; want %d (error: %v)", c.f.at, c.f.in, p.RunAt, err, c.want, c.bad)
		}
	}
}
