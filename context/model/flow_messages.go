package model

// Flows made the seed way dispatch every ready job as a Message saved in
// Redis with its flow_id and pushed on msg_out (seed 002, the flow
// execution pipeline); the bridge takes it from there, to another agent
// or to this agent's own queue. Flows from flow files keep the direct
// path: a job this agent runs goes straight on its queue.

// ExtraDispatchVia, on a flow job, says how the scheduler hands it to a
// runner: DispatchViaMsgOut, or absent for the direct path.
const ExtraDispatchVia = "dispatch_via"

// DispatchViaMsgOut is ExtraDispatchVia for a job of a flow made the seed
// way: every attempt goes as a Message on msg_out.
const DispatchViaMsgOut = "msg_out"

// ExtraMessageFlowID, on a message that carries a flow's job, is that
// flow's id (seed 002: "flow_id to Message for proper DAG tracking").
const ExtraMessageFlowID = "flow_id"
