package config_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/hyphae-run/hyphae/node/config"
)

// The files section: its defaults are the component's, a misspelt key gets
// a did-you-mean, a bad bound is refused naming the key.
func TestFilesSection(t *testing.T) {
	c := &config.Config{}
	c.Defaults()
	if f := c.Files; f.MaxFileMB != files.DefaultMaxFileMB || f.MaxJobMB != files.DefaultMaxJobMB || f.MaxStoreMB != cas.DefaultMaxMB {
		t.Fatalf("files defaults %+v differ from the component's", f)
	}
	c, err := config.Parse([]byte("files:\n  max_file_mb: 1\n  max_job_mb: 2\n  max_store_mb: 3\n"), "f.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if lim := c.Files.Limits(); lim.MaxFileBytes != 1<<20 || lim.MaxJobBytes != 2<<20 || c.Files.MaxStoreMB != 3 {
		t.Fatalf("parsed %+v, limits %+v", c.Files, lim)
	}
	if _, err := config.Parse([]byte("files:\n  max_fil_mb: 1\n"), "f.yaml"); err == nil ||
		!strings.Contains(err.Error(), `did you mean "files.max_file_mb"`) {
		t.Fatalf("misspelt key: %v", err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"files:\n  max_job_mb: -1\n", "files.max_job_mb: -1 must not be negative"},
		{"files:\n  max_file_mb: 10\n  max_job_mb: 5\n", "files.max_file_mb: 10 is past files.max_job_mb"},
	} {
		c, err := config.Parse([]byte(tc.yaml), "f.yaml")
		if err != nil {
			t.Fatal(err)
		}
		c.Defaults()
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
