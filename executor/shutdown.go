package executor

import "context"

// Shutdown stops taking work and waits for the jobs in hand. Jobs still
// running when ctx ends are killed (process group, SIGTERM then SIGKILL
// after KillGrace) and end "error: drained" — put back as a new attempt
// when their retries allow. Jobs waiting to retry are put back at once.
// It is safe to call twice (and before Start); every call waits until the
// runner has stopped.
func (r *Runner) Shutdown(ctx context.Context) error {
	r.shutOnce.Do(func() {
		r.mu.Lock()
		r.stopping = true
		started := r.started
		r.mu.Unlock()
		if !started {
			r.stopIntake()
			r.stopService()
			close(r.done)
			return
		}
		r.log.Info("executor: shutting down")
		go r.shutdown()
	})
	select {
	case <-r.done:
	case <-ctx.Done():
		r.drain()
		<-r.done
	}
	return nil
}

// shutdown runs the stop sequence: intake, then jobs, then the services
// (heartbeat, stop events) the jobs needed until their end.
func (r *Runner) shutdown() {
	r.stopIntake()
	r.intakeWG.Wait()
	r.jobWG.Wait()
	r.stopService()
	r.serviceWG.Wait()
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
