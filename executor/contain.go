package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor/sandbox"
)

// Contain says which jobs run contained (docs/design.md, "Contained jobs"): in namespaces of
// their own, as a user that is not the agent's, the data dir hidden.
type Contain struct {
	// Own is how the agent's own jobs run (its API, CLI, flows, Redis and
	// hero clients): "host" (default) or "contained".
	Own string
	// Remote is how jobs from other actors (received over the bus) run:
	// "contained" (default) or "host" (not recommended: they see the
	// agent's key, token and store).
	Remote string
	// User runs contained jobs as this user when the agent is root; ""
	// = one uid per context from 61184 up, as systemd's DynamicUser.
	User string
	// PidsMax bounds a contained job's processes where the runner has
	// cgroups; default 512, -1 = no limit.
	PidsMax int64
	// Hide lists more files or directories to hide (the config file when
	// it lives outside the data dir).
	Hide []string
}

func (c Contain) withDefaults() Contain {
	if c.Own == "" {
		c.Own = model.IsolationHost
	}
	if c.Remote == "" {
		c.Remote = model.IsolationContained
	}
	if c.PidsMax == 0 {
		c.PidsMax = 512
	}
	return c
}

func (c Contain) validate() error {
	if err := model.CheckIsolation(c.Own); err != nil {
		return fmt.Errorf("isolation.own: %w", err)
	}
	if err := model.CheckIsolation(c.Remote); err != nil {
		return fmt.Errorf("isolation.remote: %w", err)
	}
	if c.PidsMax < -1 {
		return fmt.Errorf("isolation.pids_max %d: want -1 (none) or more", c.PidsMax)
	}
	return nil
}

// errUncontainable ends a job that must run contained on an agent that
// cannot contain it, without retries: another attempt would not help.
var errUncontainable = errors.New("job refused: it must run contained and this agent cannot contain jobs")

// containment is how one attempt runs.
type containment struct {
	on    bool
	noNet bool
}

// containFor decides how a's job runs: contained when it came from
// another actor, or its run was started by another actor's event (unless its context opts out with isolation host), or
// when the context or the configuration contains own jobs too; a job
// with network none is always contained (that needs the namespaces).
func (r *Runner) containFor(ctx context.Context, a *attempt) containment {
	pol := r.policies.get(ctx, r, a.ctxID)
	mode := r.cfg.Contain.Own
	if a.job.Origin().Received() || a.job.TriggeredBy() != "" {
		mode = r.cfg.Contain.Remote
		if pol.isolation == model.IsolationHost {
			mode = model.IsolationHost
		}
	}
	if pol.isolation == model.IsolationContained {
		mode = model.IsolationContained
	}
	noNet := a.job.Network() == model.NetworkNone || pol.network == model.NetworkNone
	return containment{on: mode == model.IsolationContained || noNet, noNet: noNet}
}

// Containment describes what this runner can give, for `hyphae info`.
func (r *Runner) Containment() string {
	r.mu.Lock()
	box := r.box
	r.mu.Unlock()
	if box == nil {
		return "unknown (runner not started)"
	}
	return box.Describe()
}

// openSandbox probes the machine once (Start).
func (r *Runner) openSandbox() error {
	hide := append([]string(nil), r.cfg.Contain.Hide...)
	box, err := sandbox.New(sandbox.Config{DataDir: r.cfg.DataDir, Hide: hide, User: r.cfg.Contain.User, Log: r.log})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.box = box
	r.mu.Unlock()
	return nil
}

// exposePython lets contained jobs read the python interpreter's prefix
// when a mask would hide it (a pyenv under the agent's home).
func (r *Runner) exposePython(interp string) {
	r.exposeOnce.Do(func() {
		prefix := filepath.Dir(filepath.Dir(interp))
		if prefix == "/" || prefix == "/usr" {
			return
		}
		r.box.Expose(prefix)
	})
}

// handToJob gives the job directory and what the agent wrote into it to
// the contained job's user (root mode; rootless jobs keep the agent's).
func (r *Runner) handToJob(ctxID uint64, dir string) error {
	uid, gid, ok := r.box.IDs(ctxID)
	if !ok {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.Lchown(filepath.Join(dir, e.Name()), uid, gid); err != nil {
			return err
		}
	}
	return os.Chown(dir, uid, gid)
}

// contextPolicy is a context's isolation and network settings.
type contextPolicy struct {
	isolation, network string
	at                 time.Time
}

// policyCache keeps each context's settings for a few seconds, so a job
// does not pay a read of its context's record.
type policyCache struct {
	mu sync.Mutex
	m  map[uint64]contextPolicy // guarded by mu
}

func (p *policyCache) get(ctx context.Context, r *Runner, ctxID uint64) contextPolicy {
	p.mu.Lock()
	pol, ok := p.m[ctxID]
	p.mu.Unlock()
	if ok && time.Since(pol.at) < r.cfg.ContextRefresh {
		return pol
	}
	c, err := r.st.Registry.LoadContext(ctx, ctxID)
	if err != nil {
		return pol // the last known settings (or none) while the store is away
	}
	pol = contextPolicy{isolation: c.Isolation(), network: c.Network(), at: time.Now()}
	p.mu.Lock()
	if p.m == nil {
		p.m = map[uint64]contextPolicy{}
	}
	p.m[ctxID] = pol
	p.mu.Unlock()
	return pol
}

// prepareContained checks that the job can be contained here and hands
// its directory over; a refusal is the job's outcome, with the fix.
func (r *Runner) prepareContained(s scriptSpec, in interp, argv []string) (outcome, bool) {
	if r.box.Mode() == "" {
		reason := errUncontainable.Error() + ": " + r.box.Why()
		return outcome{result: map[string]string{}, reason: reason, cause: errUncontainable}, false
	}
	if in.python {
		r.exposePython(argv[0])
	}
	if err := r.handToJob(s.ctxID, s.dir); err != nil {
		return outcome{result: map[string]string{}, reason: "prepare the contained job's directory: " + err.Error()}, false
	}
	return outcome{}, true
}

// limitsFor is the job's limits, with the default pids limit of a
// contained job where the runner can enforce it.
func (r *Runner) limitsFor(j *model.RunnerJob, c containment) jobLimits {
	l := jobLimits{memoryMB: j.MemoryMB, cpu: j.CPU}
	if c.on && r.cfg.Contain.PidsMax > 0 && r.cg != nil && r.cg.has("pids") {
		l.pids = r.cfg.Contain.PidsMax
	}
	return l
}
