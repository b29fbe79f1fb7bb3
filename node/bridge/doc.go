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
// at-least-once and processing effectively-once.
//
// Redis keys of ours, per context DB: outbox (ZSET message key → next send,
// unix ms), awaiting_result (ZSET acknowledged job message → deadline for
// its result, after which the origin job fails), msg_out:processing, remote_done / remote_done:processing (ended
// jobs that came from elsewhere), inbound:<sender>:<ref> and
// inbound_job:<sender>:<origin ctx>:<origin job> (dedupe, 7 days); in DB 0:
// seen:<sender>/<envelope id> (replay window). Extra fields on hashes:
// a sent job keeps message_key; a received job keeps origin_peer,
// origin_context, origin_job, origin_attempt, origin_ref; a message keeps
// sends, from, target_context.
package bridge
