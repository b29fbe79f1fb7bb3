package config

import (
	"fmt"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
)

// Files bounds files between jobs (docs/design.md, "Files between jobs"):
// one output file, one job's files together, and the agent's content
// store (<data_dir>/files), in MiB.
type Files struct {
	MaxFileMB  int64 `yaml:"max_file_mb"`  // default 4096
	MaxJobMB   int64 `yaml:"max_job_mb"`   // default 16384
	MaxStoreMB int64 `yaml:"max_store_mb"` // default 65536
}

// The defaults are those of the files component (files, files/cas).
func (f *Files) defaults() {
	setDefault(&f.MaxFileMB, files.DefaultMaxFileMB)
	setDefault(&f.MaxJobMB, files.DefaultMaxJobMB)
	setDefault(&f.MaxStoreMB, cas.DefaultMaxMB)
}

func (f *Files) validate() []error {
	var errs []error
	for _, d := range []struct {
		name string
		v    int64
	}{{"files.max_file_mb", f.MaxFileMB}, {"files.max_job_mb", f.MaxJobMB}, {"files.max_store_mb", f.MaxStoreMB}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s: %d must not be negative", d.name, d.v))
		}
	}
	if f.MaxFileMB > 0 && f.MaxJobMB > 0 && f.MaxFileMB > f.MaxJobMB {
		errs = append(errs, fmt.Errorf("files.max_file_mb: %d is past files.max_job_mb (%d): one file could never fit", f.MaxFileMB, f.MaxJobMB))
	}
	return errs
}

// Limits is the files component's Limits of these bounds.
func (f Files) Limits() files.Limits { return files.LimitsMB(f.MaxFileMB, f.MaxJobMB) }
