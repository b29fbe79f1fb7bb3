package flowfile

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// OnFailure says what a flow does with jobs in flight when one fails.
type OnFailure string

// On-failure policies.
const (
	// OnFailureWait cancels what depends on the failed job and lets every
	// other branch run to its end; the flow then ends error.
	OnFailureWait OnFailure = "wait"
	// OnFailureStop stops the jobs in flight, cancels the rest and ends the
	// flow error at once.
	OnFailureStop OnFailure = "stop"
)

// File is a parsed, validated flow file.
type File struct {
	Name      string
	Context   uint64 // 0 when the file names none (the caller must)
	Env       map[string]string
	Timeout   time.Duration // whole flow; 0 = none
	OnFailure OnFailure
	Jobs      []*JobSpec    // in file order
	Source    string        // the file name messages use
	Schedule  *ScheduleSpec // + when to start runs (flow schedule add); nil = none
	On        *OnSpec       // + the events that start runs (flow trigger add); nil = none
	Network   string        // + every job's network unless it says (network.go): "none", "host" or ""
}

// JobSpec is one job of a flow file.
type JobSpec struct {
	Name            string
	Type            string
	Script          string // script_file already read in
	ScriptFile      string // as written, "" when inline
	Needs           []string
	Runner          string // "", "self", a peer ID or runner:<id>
	Env             map[string]string
	Timeout         time.Duration
	Retries         int64
	MemoryMB        int64   // memory limit in MiB, 0 = none
	CPU             float64 // CPU limit in cores, 0 = none
	ContinueOnError bool
	RunAt           time.Time     // + start no earlier than this (zero: at once)
	Delay           time.Duration // + start this long after the job is ready
	Sleep           time.Duration // + a step that only waits this long (a noop job with Delay)
	Compensate      *JobSpec      // + what undoes this job when the flow fails after it finished; nil = none
	Concurrency     keyedSpec     // + concurrency_key (${VAR} filled in per run) and max_in_flight (keyed.go)
	WaitFor         *WaitForSpec  // + a step that waits for an event (parse_on.go); nil = none
	Network         string        // + "none" (only loopback), "host" or "" (the flow's; network.go)
	Outputs         []string      // + paths or globs: the files that become the job's (outputs.go)
	Line            int
}

// Job returns the job called name, or nil.
func (f *File) Job(name string) *JobSpec {
	for _, j := range f.Jobs {
		if j.Name == name {
			return j
		}
	}
	return nil
}

// FileError is one problem in a flow file, with where it is.
type FileError struct {
	File string
	Line int    // 0 when unknown
	Job  string // "" for flow-level problems
	Msg  string
}

func (e *FileError) Error() string { return position(e.File, e.Line, e.Job) + e.Msg }

// Warning is something in a flow file that may not work but is not wrong:
// a script type no known runner serves today, say.
type Warning FileError

func (w Warning) String() string { return position(w.File, w.Line, w.Job) + w.Msg }

func position(file string, line int, job string) string {
	var b strings.Builder
	b.WriteString(file)
	if line > 0 {
		fmt.Fprintf(&b, ":%d", line)
	}
	b.WriteString(": ")
	if job != "" {
		fmt.Fprintf(&b, "job %q: ", job)
	}
	return b.String()
}

// Errors is every problem found in a flow file, in line order.
type Errors []*FileError

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

func (es Errors) sorted() Errors {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Line < es[j].Line })
	return es
}
