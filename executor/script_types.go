package executor

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// NoopType is the built-in script type that runs nothing and finishes at
// once; it measures the dispatch overhead.
const NoopType = "noop"

// BuiltinTypes are the script types a runner serves without configuration
// (when their interpreter is installed).
var BuiltinTypes = []string{NoopType, "sh", "bash", "python"}

// interp says how to run one script type.
type interp struct {
	argv   []string // command line; "{file}" is the script path
	python bool     // argv[0] is the lazily resolved python interpreter
	ext    string   // script file extension
	noop   bool
}

// command returns the argv to run script file with.
func (in interp) command(py *pythonPath, file string) ([]string, error) {
	argv := append([]string(nil), in.argv...)
	if in.python {
		p, err := py.get()
		if err != nil {
			return nil, err
		}
		argv[0] = p
	}
	placed := false
	for i, a := range argv {
		if strings.Contains(a, "{file}") {
			argv[i], placed = strings.ReplaceAll(a, "{file}", file), true
		}
	}
	if !placed {
		argv = append(argv, file)
	}
	return argv, nil
}

// resolveTypes builds the table of served script types: the built-ins
// whose interpreter exists, noop, and the configured executors (which may
// replace built-ins). Types whose program is missing are left out, with a
// warning, so their jobs fail with the "types this agent has" message.
func resolveTypes(cfg Config, log *slog.Logger) map[string]interp {
	out := map[string]interp{NoopType: {noop: true}}
	if p, err := exec.LookPath("sh"); err == nil {
		out["sh"] = interp{argv: []string{p, "{file}"}, ext: ".sh"}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		out["bash"] = interp{argv: []string{p, "{file}"}, ext: ".bash"}
	} else {
		log.Warn("executor: bash not found; script type bash not served")
	}
	if cfg.Python != "" || lookable("python3") {
		out["python"] = interp{argv: []string{"python3", "-u", "{file}"}, python: true, ext: ".py"}
	} else {
		log.Warn("executor: python3 not found; script type python not served")
	}
	for t, argv := range cfg.Executors {
		if !lookable(argv[0]) {
			log.Warn("executor: program not found; script type not served", "type", t, "program", argv[0])
			delete(out, t)
			continue
		}
		out[t] = interp{argv: append([]string(nil), argv...), ext: "." + t}
	}
	return out
}

func lookable(prog string) bool {
	_, err := exec.LookPath(prog)
	return err == nil
}

func sortedTypes(m map[string]interp) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// pythonPath resolves the python interpreter once, on first use.
type pythonPath struct {
	configured string
	log        *slog.Logger
	once       sync.Once
	path       string
	err        error
}

func (p *pythonPath) get() (string, error) {
	p.once.Do(func() {
		if p.configured != "" {
			p.path, p.err = exec.LookPath(p.configured)
			return
		}
		p.path, p.err = resolvePython(p.log)
	})
	return p.path, p.err
}

// resolvePython finds python3 on PATH and, when it is a wrapper script
// (pyenv shims and the like), asks it once for the exe interpreter.
func resolvePython(log *slog.Logger) (string, error) {
	found, err := exec.LookPath("python3")
	if err != nil {
		return "", fmt.Errorf("python3 not found: %w", err)
	}
	if !isScript(found) {
		return found, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, found, "-c", "import sys; print(sys.executable)").Output()
	exe := strings.TrimSpace(string(out))
	if err != nil || exe == "" || !lookable(exe) {
		log.Warn("executor: cannot resolve python3 wrapper; using it as is", "path", found, "err", err)
		return found, nil
	}
	log.Debug("executor: python3 resolved", "wrapper", found, "interpreter", exe)
	return exe, nil
}

// isScript reports whether the file starts with "#!".
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("#!"))
}
