package store

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// The tests outside the package reach these through the exported names.

// ClaimIdempotency is claimIdempotency, for the external tests.
func (s *Jobs) ClaimIdempotency(ctx context.Context, contextID uint64, key string, ref string, ttl time.Duration) (existing string, fresh bool, err error) {
	return s.claimIdempotency(ctx, contextID, key, ref, ttl)
}

// CompleteJobWithLogs is completeJobWithLogs, for the external tests.
func (s *Jobs) CompleteJobWithLogs(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash, lines []string, max int) error {
	return s.completeJobWithLogs(ctx, ctxID, key, attempt, status, fields, lines, max)
}

// CompleteSentJob is completeSentJob, for the external tests.
func (s *Jobs) CompleteSentJob(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash, lines []string, max int, msgKey string) error {
	return s.completeSentJob(ctx, ctxID, key, attempt, status, fields, lines, max, msgKey)
}

// Databases is databaseCount, for the external tests.
func (s *Store) Databases() uint64 { return s.databaseCount() }

// DeleteContext is deleteContext, for the external tests.
func (s *Registry) DeleteContext(ctx context.Context, id uint64) error {
	return s.deleteContext(ctx, id)
}

// DeleteFlow is deleteFlow, for the external tests.
func (s *Flows) DeleteFlow(ctx context.Context, ctxID uint64, id uint64) error {
	return s.deleteFlow(ctx, ctxID, id)
}

// DeleteJob is deleteJob, for the external tests.
func (s *Jobs) DeleteJob(ctx context.Context, ctxID uint64, caller uint64, id uint64) error {
	return s.deleteJob(ctx, ctxID, caller, id)
}

// DeleteMessage is deleteMessage, for the external tests.
func (s *Bus) DeleteMessage(ctx context.Context, ctxID uint64, caller uint64, id uint64) error {
	return s.deleteMessage(ctx, ctxID, caller, id)
}

// DeleteRunner is deleteRunner, for the external tests.
func (s *Registry) DeleteRunner(ctx context.Context, ctxID uint64, id uint64) error {
	return s.deleteRunner(ctx, ctxID, id)
}

// DispatchFlowJobs is dispatchFlowJobs, for the external tests.
func (s *Flows) DispatchFlowJobs(ctx context.Context, ctxID uint64, ds []FlowDispatch) ([]bool, error) {
	return s.dispatchFlowJobs(ctx, ctxID, ds)
}

// LoadIdempotency is loadIdempotency, for the external tests.
func (s *Jobs) LoadIdempotency(ctx context.Context, contextID uint64, key string) (IdemRecord, error) {
	return s.loadIdempotency(ctx, contextID, key)
}

// Materialize is materialize, for the external tests.
func (s *Bus) Materialize(ctx context.Context, ctxID uint64, sender string, ref string, originCtx uint64, originJob string, m *model.Message, j *model.RunnerJob) (string, bool, error) {
	return s.materialize(ctx, ctxID, sender, ref, originCtx, originJob, m, j)
}

// Meta is meta, for the external tests.
func (s *Registry) Meta(ctx context.Context) (model.Hash, error) { return s.meta(ctx) }

// NextTimer is nextTimer, for the external tests.
func (s *Timing) NextTimer(ctx context.Context, ctxID uint64) (time.Time, error) {
	return s.nextTimer(ctx, ctxID)
}

// ReceiveMessage is receiveMessage, for the external tests.
func (s *Bus) ReceiveMessage(ctx context.Context, ctxID uint64, sender string, ref string, m *model.Message) (bool, error) {
	return s.receiveMessage(ctx, ctxID, sender, ref, m)
}

// SaveContext is saveContext, for the external tests.
func (s *Registry) SaveContext(ctx context.Context, c *model.Context) error {
	return s.saveContext(ctx, c)
}

// SaveFlow is saveFlow, for the external tests.
func (s *Flows) SaveFlow(ctx context.Context, f *model.Flow) error { return s.saveFlow(ctx, f) }

// SaveMessage is saveMessage, for the external tests.
func (s *Bus) SaveMessage(ctx context.Context, m *model.Message) error {
	return s.saveMessage(ctx, m)
}

// UpdateContext is updateContext, for the external tests.
func (s *Registry) UpdateContext(ctx context.Context, id uint64, fn func(*model.Context) error) (*model.Context, error) {
	return s.updateContext(ctx, id, fn)
}
