// Package bridge carries messages between a context DB and the bus: it
// takes Message keys from each local context's msg_out, seals them
// (crypto/envelope: signed by this agent, age-encrypted to the recipient)
// and sends them over the overlay, keeping each in a durable outbox until
// the recipient acknowledges it; it verifies, opens, dedupes and authorises
// what arrives, materialises permitted jobs into the target context, and
// sends each remote job's result home.
//
// Inside the envelope the payload is JSON (see payload). Every reliable
// message (job, stop, result, chat, mail) carries a ref "<ctx>/<message
// key>" unique at its sender; the receiver answers ack{ack_of: ref} (or
// error{ack_of: ref, error}) and dedupes by (sender, ref), so delivery is
// at-least-once and processing effectively-once. Acks wait a little
// (Config.AckDelay, 100ms) before going out on their own: a received job's
// ack is dropped when its result goes out first (the result acknowledges it
// too; the origin settles its message on either), and any pending ack rides
// on the next message sealed to its peer instead, in the payload's acks
// list — a result's ack usually travels with the origin's next job. So a
// short job costs two sealed messages, not four. A job still running when
// its ack leaves (or that starts later) gets an ack that says so, which
// moves the origin's record to started (see started.go).
//
// Each message costs a fixed few round trips: a job submitted through the
// API is saved, put in the outbox and sent from memory (Submit: ids come
// from reserved blocks, the rest is one MULTI); a msg_out or remote_done
// entry is read, then recorded and moved to the outbox in one MULTI
// (store.Dispatch). A first send is published while that MULTI is under
// way (sendWhileWriting): until it lands the message's source still holds
// it, and an answer that overtakes it waits for it (sentJobs). The replay
// check is answered from memory for envelopes no earlier run can have seen
// (see replays); a result is matched to the job it answers from memory
// (sentJobs), and the job's end and its message's settling are one script
// (store.CompleteSentJobHome), so nothing is left to write once the job's
// waiter wakes.
// Only retransmissions read a message back from Redis. Chat and mail are
// stored once per (sender, ref), as jobs are.
//
// A received job costs one script at the target: the sender's local actor
// id comes from memory (actorIDs), and the role check, the writes and the
// enqueue are one script (store.MaterializeAndClaim), so a revoked grant cannot
// slip in between; when the local runner has a slot free (Config.Offer)
// and no backlog, the same script claims the job for it (it never touches
// a queue) and the job is handed to it in process. Its result leaves as the job ends: the runner tells the
// bridge just before it writes the end (JobEnding, the runner's ending
// hook), and the result is built from that and published while the write
// goes on; its record is written when remote_done hands the job over, as
// for any result (see early.go). Until then remote_done, or the job's
// lease, still holds the job, so a crash loses nothing: the result is
// built again from Redis and resent, and the origin takes it once.
//
// A sent job whose result never comes ends in error at its origin at its
// result deadline. A job whose runner's agent has been down for
// Config.RunnerGrace is unknown instead (model.ExtraRunnerState; its
// status is untouched) and is reconciled when the agent returns; it is
// given up on as lost only after Config.RunnerLostAfter, saying that it
// may still have run there, and a result that comes from there later is
// kept beside it (late_result). When a peer returns, what the outbox holds
// for it goes at once, its backoff started again (reach.go, resend.go,
// late.go).
//
// Status messages read a sent job's log at the agent running it, on
// request, without an outbox (see logs.go).
//
// Seed clients (docs/design.md, "How Hyphae reads the specifications it follows"): a result that comes home also leaves a result
// message (the ended job embedded, its log tail in logs) on the origin
// context's msg_in, written by the same script as the job's end
// (result_home.go). A runner record with local: true declares an external
// worker for its types: jobs of those types go to this agent and wait on
// their queue for it, and what it ends by HSET, or reports by a result
// message on msg_out, goes home (external.go). A context written only in
// its own DB is adopted, or refused with the reason on its hash
// (adopt.go).
//
// Trust goes both ways (docs/design.md, "Trust"). A job leaves only for the peer its
// message or its runner names, or, when the agent chooses (no dst, no
// runner), for a runner registered in its context, else this agent; with
// none of those it is refused (ErrNoRunner). The rule is context/route's,
// which job.run and the scheduler share (route.go reads a job's runner
// field with it, runners.go caches the records it reads). Presence only
// ranks the registered runners. An answer — ack, error, result, log
// lines — counts only from the peer its message went to (store.AckFrom,
// sentTo, logWaiters); anything else, and any message refused after it
// passed the validator, is counted under its reason, changes nothing, and
// is held against its sender (refused: overlay peer score and rate limit).
//
// Redis keys of ours, per context DB: outbox (ZSET message key → next send,
// unix ms), awaiting_result (ZSET acknowledged job message → deadline for
// its result, after which the origin job fails), msg_out:processing, remote_done / remote_done:processing (ended
// jobs that came from elsewhere), inbound:<sender>:<ref> and
// inbound_job:<sender>:<origin ctx>:<origin job> (dedupe, 7 days),
// external_jobs (ZSET of received jobs left to an external worker); in DB 0:
// seen:<sender>/<envelope id> (replay window) and replay_horizon. Extra
// fields on hashes (named by the model.Extra* constants): a sent job keeps
// message_key and, once its result came, ran_on; while its runner is
// unreachable runner_state and unreachable_since, and once given up on
// lost_runner, lost_attempt and perhaps late_result; a received job keeps its
// origin (model.JobOrigin: origin_peer, origin_context, origin_job,
// origin_attempt, origin_ref); a message keeps sends (and backoff_from
// once its peer came back while it waited), and one received
// keeps from and origin_ref; a result message keeps result_of (and, on
// the origin's msg_in, from); a job whose external worker's end went home
// keeps sent_home.
package bridge
