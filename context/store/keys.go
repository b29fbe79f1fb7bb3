package store

import (
	"fmt"
	"strconv"
	"strings"
)

// Seed keys (docs/design.md, "Redis layout"). These helpers are the only place keys are built.

// ActorKey is actor:<id> (DB 0).
func ActorKey(id uint64) string { return actorKeyPrefix + u(id) }

// actorKeyPrefix + id is ActorKey(id).
const actorKeyPrefix = "actor:"

// ActorByPubkeyKey is actor_by_pubkey:<pubkey> (DB 0), a string → actor id.
func ActorByPubkeyKey(pubkey string) string { return "actor_by_pubkey:" + pubkey }

// ContextKey is context:<id> (DB 0 registry copy and DB N).
func ContextKey(id uint64) string { return "context:" + u(id) }

// FlowKey is flow:<id>.
func FlowKey(id uint64) string { return "flow:" + u(id) }

// MessageKey is message:<caller_id>:<id>.
func MessageKey(caller, id uint64) string { return "message:" + u(caller) + ":" + u(id) }

// RunnerKey is runner:<id>.
func RunnerKey(id uint64) string { return "runner:" + u(id) }

// JobKey is job:<caller_id>:<id>.
func JobKey(caller, id uint64) string { return "job:" + u(caller) + ":" + u(id) }

// QueueKey is queue:<script_type>.
func QueueKey(scriptType string) string { return "queue:" + scriptType }

// The message lists of a context DB.
const (
	MsgOutKey = "msg_out"
	MsgInKey  = "msg_in"
)

// Our additions.

// ReplyKey is reply:<job key>: one entry (the final status) is pushed when
// the job ends, so a client can BLPOP it.
func ReplyKey(jobKey string) string { return "reply:" + jobKey }

// JobsDoneKey lists job keys that reached a terminal state; the scheduler
// consumes it (event-driven flows).
const JobsDoneKey = "jobs_done"

// RemoteDoneKey lists keys of ended jobs that came from another agent; the
// bridge consumes it and sends each result home.
const RemoteDoneKey = "remote_done"

// SeqKey is the id counter for a kind of object in a DB.
func SeqKey(kind string) string { return "seq:" + kind }

// PeerKey is peer:<peer_id> (DB 0).
func PeerKey(peerID string) string { return "peer:" + peerID }

// NodeKey is the node metadata hash (DB 0).
const NodeKey = "node"

// LogKey is logs:<job key>, the capped list of a job's output lines.
func LogKey(jobKey string) string { return "logs:" + jobKey }

// DeadLetterKey lists entries that could not be processed, with reasons.
const DeadLetterKey = "dead_letter"

// Hero dispatcher protocol keys (DB 0).

// HeroJobKey is hero:job:<id>.
func HeroJobKey(id string) string { return "hero:job:" + id }

// HeroWorkQueueKey is hero:work_queue:<worker_id>.
func HeroWorkQueueKey(worker string) string { return "hero:work_queue:" + worker }

// HeroStopQueueKey is hero:stop_queue:<worker_id>.
func HeroStopQueueKey(worker string) string { return "hero:stop_queue:" + worker }

// HeroReplyKey is hero:reply:<job_id>.
func HeroReplyKey(id string) string { return "hero:reply:" + id }

// ParseJobKey splits job:<caller>:<id>.
func ParseJobKey(key string) (caller, id uint64, err error) {
	return parsePair("job:", key)
}

// ParseMessageKey splits message:<caller>:<id>.
func ParseMessageKey(key string) (caller, id uint64, err error) {
	return parsePair("message:", key)
}

func parsePair(prefix, key string) (uint64, uint64, error) {
	rest, ok := strings.CutPrefix(key, prefix)
	a, b, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		return 0, 0, fmt.Errorf("key %q: want %s<caller_id>:<id>", key, prefix)
	}
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("key %q: ids must be decimal", key)
	}
	return x, y, nil
}

func u(x uint64) string { return strconv.FormatUint(x, 10) }
