package bridge

// LostJob counts a fault against peerID's circuit breaker for a job sent
// there that someone else gave up on as lost: the scheduler gives up on a
// flow's remote jobs itself (its lost-runner watchdog), so that they count
// as the plain jobs this bridge gives up on (lose) do.
func (b *Bridge) LostJob(peerID, reason string) {
	if peerID == "" || peerID == b.names.name(b.self) {
		return
	}
	b.breakers.fault(peerID, reason)
}
