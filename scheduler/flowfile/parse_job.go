package flowfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hyphae-run/hyphae/context/model"
)

var jobKeys = []string{"type", "script", "script_file", "needs", "runner", "env", "timeout", "retries", "memory_mb", "cpu", "continue_on_error", "run_at", "delay", "sleep", "compensate", "wait_for", "concurrency_key", "max_in_flight", "network", "outputs"}

// jobs decodes the jobs mapping, in file order.
func (p *parser) jobs(n *yaml.Node) []*JobSpec {
	if n.Kind != yaml.MappingNode {
		p.fail(n, "", "jobs: want a mapping of job name → {type, script, …}, got %s", kindName(n))
		return nil
	}
	es := p.entries(n, "", "job")
	if len(es) == 0 {
		p.fail(n, "", "jobs: empty: a flow needs at least one job")
	}
	out := make([]*JobSpec, 0, len(es))
	for _, e := range es {
		out = append(out, p.job(e))
	}
	return out
}

// job decodes one job's mapping.
func (p *parser) job(e entry) *JobSpec {
	j := &JobSpec{Name: e.key, Line: e.k.Line}
	if e.v.Kind != yaml.MappingNode {
		p.fail(e.k, j.Name, "want a mapping with type and script, got %s", kindName(e.v))
		return j
	}
	var scriptKey, fileKey, sleepKey, waitKey *yaml.Node
	for _, f := range p.entries(e.v, j.Name, "key") {
		switch f.key {
		case "type":
			j.Type = p.str(f, j.Name)
		case "script":
			j.Script, scriptKey = p.str(f, j.Name), f.k
		case "script_file":
			j.ScriptFile, fileKey = p.str(f, j.Name), f.k
		case "needs":
			j.Needs = p.needs(f, j.Name)
		case "runner":
			j.Runner = p.runner(f, j.Name)
		case "env":
			j.Env = p.env(f, j.Name)
		case "timeout":
			j.Timeout = p.duration(f, j.Name)
		case "retries":
			j.Retries = p.count(f, j.Name)
		case "memory_mb":
			j.MemoryMB = p.megabytes(f, j.Name)
		case "cpu":
			j.CPU = p.cores(f, j.Name)
		case "continue_on_error":
			j.ContinueOnError = p.boolean(f, j.Name)
		case "run_at":
			j.RunAt = p.runAt(f, j.Name)
		case "delay":
			j.Delay = p.duration(f, j.Name)
		case "sleep":
			j.Sleep, sleepKey = p.duration(f, j.Name), f.k
		case "compensate":
			j.Compensate = p.compensate(f, j.Name)
		case "concurrency_key": // keyed.go
			j.Concurrency.Key = p.concurrencyKey(f, j.Name)
		case "max_in_flight":
			j.Concurrency.MaxInFlight = p.maxInFlight(f, j.Name)
		case "wait_for":
			j.WaitFor, waitKey = p.waitFor(f, j.Name), f.k
		case "network": // network.go
			j.Network = p.network(f, j.Name)
		case "outputs": // outputs.go
			j.Outputs = p.outputs(f, j.Name)
		default:
			p.unknownKey(f, j.Name, jobKeys)
		}
	}
	if sleepKey != nil {
		p.sleep(j, sleepKey, scriptKey != nil || fileKey != nil)
		scriptKey = sleepKey
	}
	if waitKey != nil {
		p.waitStep(j, waitKey, scriptKey != nil || fileKey != nil)
		scriptKey = waitKey
	}
	p.when(j, e.k)
	p.jobType(j, e.k)
	p.script(j, e.k, scriptKey, fileKey)
	return j
}

func (p *parser) jobType(j *JobSpec, at *yaml.Node) {
	switch {
	case j.Type == "":
		p.fail(at, j.Name, "missing type: say what runs the script (sh, bash, python, …)")
	case !model.ValidScriptType(j.Type):
		p.fail(at, j.Name, "bad type %q: use letters, digits, '.', '_', '+' and '-'", j.Type)
	}
}

// script checks script / script_file and reads the file in.
func (p *parser) script(j *JobSpec, at, scriptKey, fileKey *yaml.Node) {
	switch {
	case scriptKey != nil && fileKey != nil:
		p.fail(fileKey, j.Name, "give script or script_file, not both")
	case scriptKey == nil && fileKey == nil:
		p.fail(at, j.Name, "no script: add `script:` or `script_file:`")
	case fileKey != nil:
		p.readScript(j, fileKey)
	case strings.TrimSpace(j.Script) == "":
		p.fail(scriptKey, j.Name, "empty script")
	}
}

func (p *parser) readScript(j *JobSpec, at *yaml.Node) {
	if j.ScriptFile == "" {
		p.fail(at, j.Name, "empty script_file")
		return
	}
	path := j.ScriptFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.dir, path)
	}
	b, err := readScriptFile(path)
	if err != nil {
		p.fail(at, j.Name, "script_file %q: %v", j.ScriptFile, unwrapPath(err))
		return
	}
	if strings.TrimSpace(string(b)) == "" {
		p.fail(at, j.Name, "script_file %q is empty", j.ScriptFile)
		return
	}
	j.Script = string(b)
}

// MaxScriptFile bounds a script_file's size.
const MaxScriptFile = 1 << 20

// readScriptFile reads a regular file of at most MaxScriptFile bytes: a
// FIFO or a device (/dev/zero) would block the parse or never end.
func readScriptFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%v)", st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxScriptFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxScriptFile {
		return nil, fmt.Errorf("over %d bytes", MaxScriptFile)
	}
	return b, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// runner accepts "", self, runner:<id> or a peer ID (checkRunner).
func (p *parser) runner(e entry, job string) string {
	r := p.str(e, job)
	if msg := checkRunner(r); msg != "" {
		p.fail(e.v, job, "%s", msg)
		return ""
	}
	return r
}
