package executor

import (
	"context"
	"fmt"
)

// Shutdown stops taking work and waits for the jobs in hand. Jobs still
// running when ctx ends are killed (process group, SIGTERM then SIGKILL
// after KillGrace) and end "error: drained" — put back as a new attempt
// when their retries allow. Jobs waiting to retry are put back at once.
// It is safe to call twice (and before Start); every call waits until the
// runner has stopped. When ctx ended first the error wraps ctx.Err() and
// says how many jobs were still running then.
func (r *Runner) Shutdown(ctx context.Context) error {
	r.shutOnce.Do(func() {
		r.mu.Lock()
		r.stopping = true
		started := r.started
		r.mu.Unlock()
		if !started {
			r.intakeWork.Stop()
			r.serviceWork.Stop()
			close(r.done)
			return
		}
		r.log.Info("executor: shutting down")
		go r.shutdown()
	})
	select {
	case <-r.done:
		return nil
	default:
	}
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		n := r.inHand()
		r.drain()
		<-r.done
		return fmt.Errorf("executor.Shutdown: %d jobs still running, drained: %w", n, ctx.Err())
	}
}

// inHand counts the attempts running now.
func (r *Runner) inHand() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running)
}

// shutdown runs the stop sequence: intake, then jobs, then the services
// (heartbeat, stop events) the jobs needed until their end.
func (r *Runner) shutdown() {
	_ = r.intakeWork.Shutdown(context.Background()) // stop, then wait
	r.jobWG.Wait()
	_ = r.serviceWork.Shutdown(context.Background())
	r.uncontain()
	if r.devNull != nil {
		r.devNull.Close()
	}
	r.log.Info("executor: stopped")
	close(r.done)
}

// drain kills every running job with cause errDrained.
func (r *Runner) drain() {
	r.drainOnce.Do(func() {
		close(r.drainNow)
		r.cancelWhere(func(runKey) bool { return true }, errDrained)
	})
}

// draining reports whether running jobs must be killed.
func (r *Runner) draining() bool {
	select {
	case <-r.drainNow:
		return true
	default:
		return false
	}
}
