// Package retention keeps a context DB and the job directories from
// growing without end, as asynq's janitor and Nomad's garbage collector
// do: finished and failed jobs, ended flows (with their jobs) and settled
// messages go once they are older than Config.MaxAge or beyond a count per
// context (the newest are kept), each with its log, reply list and job
// directories, and msg_in, a record only, is trimmed to a count.
//
// A Janitor sweeps every context of the agent each Config.Interval, and
// Prune does the same at once (hyphae prune), optionally as a dry run.
// The agent's runner also tells it of each job it ends (Janitor.Ended):
// once a context's ended jobs pass MaxJobs by Config.Margin, its jobs are
// swept without waiting for the Interval (early.go), so a busy runner
// never piles up many times the bound for one large sweep to remove. A
// sweep lists what has ended page by page and removes it in batches of
// Config.Batch items, each batch one Lua script (context/store's
// PruneJobs, PruneFlows, PruneMessages) that checks every item again as
// it removes it, so Redis is never held for long and nothing that has
// not ended goes, nor anything still in use: a job holding a lease, a job
// sent away whose result has not come home, a received job whose result
// is not acknowledged, a flow still running and its jobs. Job directories
// go after their job's keys; a directory whose job no longer exists (a
// crash between the two, or a job deleted by hand) goes once it has not
// changed for a while (orphanGrace).
package retention
