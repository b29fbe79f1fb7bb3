package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/node/config"
)

// The retention section: its defaults are the packages' own, sizes take
// units, unknown keys and bad values are errors that name the key.
func TestRetentionSection(t *testing.T) {
	c := &config.Config{}
	c.Defaults()
	r := c.Retention
	if !*r.Enabled || r.MaxAge != retention.DefaultMaxAge || r.MaxJobs != retention.DefaultMaxJobs ||
		r.MaxFlows != retention.DefaultMaxFlows || r.MaxMessages != retention.DefaultMaxMessages ||
		r.Interval != retention.DefaultInterval || int(r.LogBytes) != executor.DefaultLogBytes ||
		int64(r.OutputBytes) != executor.DefaultOutputBytes {
		t.Fatalf("retention defaults %+v differ from the packages'", r)
	}

	c, err := config.Parse([]byte("retention:\n  enabled: false\n  max_age: 24h\n  max_jobs: 50\n  log_bytes: 64KiB\n  output_bytes: 1048576\n"), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	r = c.Retention
	if *r.Enabled || r.MaxAge != 24*time.Hour || r.MaxJobs != 50 || r.LogBytes != 64<<10 || r.OutputBytes != 1<<20 || r.MaxFlows != 1000 {
		t.Fatalf("parsed %+v", r)
	}

	for _, tc := range []struct{ yaml, want string }{
		{"retention:\n  max_jobz: 1\n", "line 2"},
		{"retention:\n  log_bytes: 10 potatoes\n", "line 2"},
	} {
		if _, err := config.Parse([]byte(tc.yaml), "r.yaml"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want one naming %s", tc.yaml, err, tc.want)
		}
	}
	c, err = config.Parse([]byte("retention: {max_age: -1h, max_jobs: -1, log_bytes: 100}\n"), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	err = c.Validate()
	for _, want := range []string{"retention.max_age", "retention.max_jobs", "retention.log_bytes"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validation error lacks %q: %v", want, err)
		}
	}
}
