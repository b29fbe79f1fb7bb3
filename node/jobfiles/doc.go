// Package jobfiles wires files between jobs into an agent (docs/design.md,
// "Files between jobs"): it owns the agent's content store
// (<data_dir>/files, package files/cas), serves it on the overlay's libp2p
// host (package files/transfer) to the peers the trust rule allows, and
// gives the runner its outputs and inputs (executor.Files).
//
// A job ref names a job on one agent: "<context>/<job key>" (Ref). The
// blobs a job's outputs made, or its inputs brought, are held in the store
// for "job/<ref>" (holdRef), released when the job is pruned (Release).
// A fetch asks the serving agent for a blob with a ref of its own: the
// producer there (its files), or the consuming job it sent here (its
// inputs). The Authorizer (Allow) lets a peer have a blob only when the
// job the ref names has that blob among its files or inputs, and the peer
// is the agent that job was sent to (it runs the consumer), the agent it
// came from, or an actor with a role in the job's context; a refusal sends
// nothing.
package jobfiles
