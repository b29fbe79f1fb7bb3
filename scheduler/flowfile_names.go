package scheduler

import "github.com/hyphae-run/hyphae/scheduler/flowfile"

// The flow-file names node/control still reaches through this package,
// until it imports flowfile itself; the language lives there.
type (
	// File is flowfile.File.
	File = flowfile.File
	// Warning is flowfile.Warning.
	Warning = flowfile.Warning
)

// Limits of the flow-file language (flowfile.MaxMemoryMB, MinCPU, MaxCPU).
const (
	MaxMemoryMB = flowfile.MaxMemoryMB
	MinCPU      = flowfile.MinCPU
	MaxCPU      = flowfile.MaxCPU
)

// Parse is flowfile.Parse.
func Parse(b []byte, name, baseDir string) (*File, []Warning, error) {
	return flowfile.Parse(b, name, baseDir)
}

// CheckTypes is flowfile.CheckTypes.
func CheckTypes(f *File, known []string) []Warning { return flowfile.CheckTypes(f, known) }

// UnknownTypes is flowfile.UnknownTypes.
func UnknownTypes(f *File, known []string) error { return flowfile.UnknownTypes(f, known) }
