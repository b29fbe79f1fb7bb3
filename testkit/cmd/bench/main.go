// Command bench runs Hyphae's benchmarks and prints the bench table: each
// of our figures beside its baseline measured in the same run, the ratio,
// the target and whether it is met.
//
//	go run ./testkit/cmd/bench            # full: about 3 minutes on 2 vCPUs
//	go run ./testkit/cmd/bench -quick     # about 1.5 minutes, fewer iterations
//	go run ./testkit/cmd/bench -count 3   # medians over 3 runs of each benchmark
//
// It compiles each package's test binary once (`go test -c`) and runs the
// benchmark invocations listed in runs.go one after another, each the same
// as `go test -run '^$' -bench <pattern> -benchtime <N>x` in the package's
// directory (the report lists them). Benchmark processes get TMPDIR on a
// tmpfs (/dev/shm) when there is one, so runner job directories and
// redis-server working directories do not touch a disk. It parses the
// standard benchmark lines, custom metrics included, and prints markdown
// to stdout (progress to stderr).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"
)

type options struct {
	quick   bool
	count   int
	verbose bool
	only    string
	out     string
	raw     string
}

func main() {
	var o options
	flag.BoolVar(&o.quick, "quick", false, "quick mode: fewer iterations, 10 s presence window without 50 agents (about 1.5 minutes)")
	flag.IntVar(&o.count, "count", 1, "run each benchmark `n` times and report medians (the presence benchmark runs once)")
	flag.BoolVar(&o.verbose, "v", false, "stream the benchmarks' output to stderr")
	flag.StringVar(&o.only, "only", "", "run only the invocations whose package or pattern matches `regexp` (other rows show n/a)")
	flag.StringVar(&o.out, "o", "", "also write the report to `file`")
	flag.StringVar(&o.raw, "raw", "", "also write the raw benchmark output to `file`")
	flag.Parse()
	if o.count < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func bench(ctx context.Context, o options) error {
	var only *regexp.Regexp
	if o.only != "" {
		var err error
		if only, err = regexp.Compile(o.only); err != nil {
			return fmt.Errorf("-only: %w", err)
		}
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	bin, err := os.MkdirTemp("", "hyphae-bench-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	tmp, tmpNote := benchTmpDir()
	if tmp != "" {
		defer os.RemoveAll(tmp)
	}
	var raw bytes.Buffer
	res := newResults()
	m := machine{load0: loadAvg(), started: time.Now()}
	var done []doneRun
	built := map[string]string{} // package → test binary, "" when the build failed
	for i, r := range runs {
		if ctx.Err() != nil {
			break
		}
		if only != nil && !only.MatchString(r.pkg) && !only.MatchString(r.bench) {
			continue
		}
		key := r.pkg + map[bool]string{true: " static"}[r.static]
		exe, ok := built[key]
		if !ok {
			exe = filepath.Join(bin, strings.NewReplacer("./", "", "/", "_", " ", "_").Replace(key)+".test")
			fmt.Fprintf(os.Stderr, "bench: building %s\n", key)
			build := exec.CommandContext(ctx, "go", "test", "-c", "-o", exe, r.pkg)
			build.Dir = root
			if r.module {
				build.Args[len(build.Args)-1] = "."
				build.Dir = filepath.Join(root, r.pkg)
			}
			if r.static {
				build.Env = append(os.Environ(), "CGO_ENABLED=0")
			}
			if out, err := build.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "bench: build %s: %v\n%s", r.pkg, err, out)
				exe = ""
			}
			built[key] = exe
		}
		fmt.Fprintf(os.Stderr, "bench: [%d/%d] %s -bench '%s' -benchtime %dx\n", i+1, len(runs), r.pkg, r.bench, r.iterations(o.quick))
		start := time.Now()
		var msg string
		if exe == "" {
			msg = "the test binary did not build"
		} else {
			msg = execRun(ctx, r, exe, root, tmp, o, &raw, res)
		}
		if msg != "" {
			res.failed = append(res.failed, failure{regexp.MustCompile(r.bench), msg})
			fmt.Fprintf(os.Stderr, "bench: %s %s: %s\n", r.pkg, r.bench, msg)
		}
		done = append(done, doneRun{r, time.Since(start), msg})
	}
	m.load1, m.took = loadAvg(), time.Since(m.started)
	var rep bytes.Buffer
	report(&rep, o, m, tmpNote, done, res)
	os.Stdout.Write(rep.Bytes())
	if o.out != "" {
		if err := os.WriteFile(o.out, rep.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if o.raw != "" {
		if err := os.WriteFile(o.raw, raw.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// execRun runs one invocation's test binary in its package directory and
// parses its output; it returns why it failed, or "".
func execRun(ctx context.Context, r run, exe, root, tmp string, o options, raw *bytes.Buffer, res *results) string {
	cmd := exec.CommandContext(ctx, exe, r.testArgs(o.quick, o.count)...)
	cmd.Dir = filepath.Join(root, r.pkg)
	cmd.Env = os.Environ()
	if tmp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	cmd.Env = append(cmd.Env, r.environ(o.quick)...)
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	var w io.Writer = &out
	if o.verbose {
		w = io.MultiWriter(&out, os.Stderr)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	fmt.Fprintf(raw, "$ %s\n%s\n", r.goTest(o.quick, o.count), out.Bytes())
	res.parse(bytes.NewReader(out.Bytes()))
	if err == nil {
		return ""
	}
	if !o.verbose {
		os.Stderr.Write(tail(out.Bytes(), 40))
	}
	return lastFailure(out.Bytes(), err)
}

// lastFailure is the most telling line of a failed run's output.
func lastFailure(out []byte, err error) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, l := range lines {
		if strings.Contains(l, "--- FAIL") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "panic:") || strings.Contains(l, "test timed out") {
			return l
		}
	}
	return err.Error()
}

func tail(b []byte, n int) []byte {
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the hyphae module: run it from the repository")
	}
	return filepath.Dir(gomod), nil
}

// benchTmpDir makes a directory on /dev/shm for the benchmarks' TMPDIR
// when /dev/shm is a writable tmpfs; otherwise it returns "" and the
// inherited TMPDIR is used. The note says which, for the report.
func benchTmpDir() (dir, note string) {
	var st syscall.Statfs_t
	const tmpfsMagic = 0x01021994
	if err := syscall.Statfs("/dev/shm", &st); err != nil || st.Type != tmpfsMagic {
		return "", "TMPDIR inherited (" + os.TempDir() + "; /dev/shm is not a tmpfs here)"
	}
	d, err := os.MkdirTemp("/dev/shm", "hyphae-bench-")
	if err != nil {
		return "", "TMPDIR inherited (" + os.TempDir() + "; /dev/shm not writable)"
	}
	return d, "TMPDIR=" + d + " (tmpfs) for every benchmark process: runner job directories, redis-server working directories, agent data dirs"
}

// machine describes where and when the run happened.
type machine struct {
	load0, load1 string
	started      time.Time
	took         time.Duration
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// doneRun is an invocation that ran, how long it took and why it failed.
type doneRun struct {
	run
	took time.Duration
	err  string
}
