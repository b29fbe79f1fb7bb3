package tracing

import "context"

type parentKey struct{}

// WithParent returns ctx carrying traceparent tp, the trace a call's
// caller asked for: a component that makes a new submission deep in a
// call (the scheduler creating a flow) takes its trace id from there.
func WithParent(ctx context.Context, tp string) context.Context {
	if tp == "" {
		return ctx
	}
	return context.WithValue(ctx, parentKey{}, tp)
}

// Parent is the traceparent WithParent put in ctx, or "".
func Parent(ctx context.Context) string {
	tp, _ := ctx.Value(parentKey{}).(string)
	return tp
}

// ForSubmission is the traceparent of a new submission made under ctx:
// the caller's trace id (WithParent) with a new span id, else a new one.
func ForSubmission(ctx context.Context) string {
	tp, err := Adopt(Parent(ctx))
	if err != nil {
		return New()
	}
	return tp
}
