// Package wire holds the control API's wire types: the params every
// JSON-RPC method takes and the views it answers with, as one package the
// server's handlers (node/control), the CLI, the dashboard (node/ui) and
// the flow renderer (node/flowtext) share. A client needs nothing else
// but the API client (node/api) to talk to an agent.
//
// It imports only context/model: a type here is plain data with its JSON
// names, which are the API's contract (docs/design.md, "The JSON-RPC API"); the
// handlers convert the domain's types into these. Changing a JSON name
// here changes the wire.
package wire
