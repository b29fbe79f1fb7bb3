package executor

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Hero reasons the seed spells out (seed 004, "Error Handling" and the
// worker loop): a job stopped before its script ran, one stopped while it
// ran, and one over its timeout.
const (
	heroReasonStopped   = "stopped"
	heroReasonByRequest = "stopped_by_request"
	heroReasonTimeout   = "timeout"
)

// heroErrorPrefix starts the reply of a job that ended error; the seed
// replies only on success, and a client blocked on hero:reply:<id> would
// otherwise wait out its whole timeout.
const heroErrorPrefix = "error: "

// heroAnswer writes a hero job's final state and pushes its reply: the raw
// output when it finished, heroErrorPrefix and the reason when it did not.
func (r *Runner) heroAnswer(id string, out outcome) {
	status, reply := heroFinished, out.result[keyStdout]
	if out.reason != "" {
		status, reply = heroError, heroErrorPrefix+out.reason
	}
	code := -1
	if n, err := strconv.Atoi(out.result[keyExitCode]); err == nil {
		code = n
	}
	res := out.result
	if res == nil {
		res = map[string]string{}
	}
	fields := model.Hash{"status": status, "output": out.result[keyStdout], "error": out.reason,
		"exit_code": strconv.Itoa(code), "result": encodeResult(res),
		"updated_at": store.HeroTime(time.Now())}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := r.st.Queues.HeroFinish(ctx, r.cfg.WorkerID, id, fields, reply); err != nil {
		r.log.Warn("executor: hero answer", "id", id, "err", err)
	}
}

// heroReason is the error a hero job's run ends with: the seed's words
// for a timeout and a stop, the runner's own otherwise.
func heroReason(out outcome) string {
	switch {
	case out.reason == "":
		return ""
	case errors.Is(out.cause, errTimeout):
		return heroReasonTimeout
	case errors.Is(out.cause, errStopped):
		return heroReasonByRequest
	}
	return out.reason
}
