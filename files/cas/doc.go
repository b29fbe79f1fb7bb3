// Package cas is the content store of files between jobs: blobs named by
// their sha256, so that the same content is kept, and moved, once per
// agent (docs/design.md, "Files between jobs").
//
// # Layout
//
// Under the store's directory (the agent's <data>/files):
//
//	blobs/ab/abcd…          a blob, read-only, named by the hex sha256 of its bytes
//	blobs/ab/abcd….chunks   its chunk list: chunk size (8 bytes, big-endian),
//	                        then the sha256 of each chunk (32 bytes each)
//	parts/abcd….part        a download under way: its verified prefix, then
//	                        possibly a chunk that did not finish
//	parts/abcd….part.ok     the part's sidecar: chunk size and count of
//	                        verified chunks (8 + 8 bytes, big-endian); none
//	                        for a blob of one chunk (all or nothing)
//	refs/<h>                the blobs one job holds, one sha256 a line
//	                        (<h>: the first 32 hex digits of sha256(job ref))
//	tmp/                    Put's files before they are named (emptied by Open)
//
// A blob becomes visible only whole and checked: its bytes are written to
// a temporary file (or the part), synced, hashed, and renamed to their
// name, the chunk list first. Store.CommitAll names many parts with one
// syncfs before the renames and one after, instead of syncs for each.
// On Linux a part of some size is written with O_DIRECT where the file
// system takes it (from a ChunkBuffer; the last short chunk through the
// page cache): no page-cache page is taken per byte received, and the
// sync before the rename has little left to write. A part's sidecar is rewritten after every
// verified chunk, so a fetch cut short (stream reset, either side killed,
// a restart) resumes from its last verified chunk; the receiver hashes
// the prefix again when it resumes, which also catches a prefix that a
// power loss left short of its sidecar.
//
// # References and retention
//
// Put and Part.Commit hold the blob for a job ref; Hold adds one. Release
// drops every reference of a job (the janitor calls it when the job is
// pruned) and Prune removes the blobs no job holds, and parts left alone
// longer than Options.PartMaxAge. The store's size is bounded
// (Options.MaxBytes, files.max_store_mb): a Put or a new part that would
// pass it prunes first and then fails with files.ErrStoreFull. References
// are appended without fsync: a power loss may lose the last ones, and
// Prune may then remove a blob early (its producer's job record still
// names it; fetching it again is the recovery).
package cas
