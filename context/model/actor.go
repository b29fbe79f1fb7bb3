package model

// Actor is a person or agent known to this node, identified locally by ID
// and globally by Pubkey (its libp2p peer ID). Stored in DB 0 as actor:<id>.
type Actor struct {
	ID        uint64
	Pubkey    string   // peer ID (12D3KooW…) of the actor's key
	Address   []string // multiaddrs where its agent was seen
	CreatedAt int64
	UpdatedAt int64
	Extra     Hash // unknown fields, preserved
}

// ToHash encodes a as a Redis hash.
func (a *Actor) ToHash() Hash {
	w := newWriter(a.Extra)
	w.u64("id", a.ID)
	w.str("pubkey", a.Pubkey)
	w.strList("address", a.Address)
	w.i64("created_at", a.CreatedAt)
	w.i64("updated_at", a.UpdatedAt)
	return w.h
}

// ActorFromHash decodes an Actor; key is used in error messages.
func ActorFromHash(key string, h Hash) (*Actor, error) {
	r := newReader(key, h)
	a := &Actor{
		ID:        r.u64("id"),
		Pubkey:    r.str("pubkey"),
		Address:   r.strList("address"),
		CreatedAt: r.i64("created_at"),
		UpdatedAt: r.i64("updated_at"),
	}
	a.Extra = r.extra()
	return a, r.err
}

// Context is a tenant: a Redis DB (its ID) and the actors allowed in it.
type Context struct {
	ID        uint64
	Name      string
	Admins    []uint64
	Readers   []uint64
	Executors []uint64
	CreatedAt int64
	UpdatedAt int64
	Extra     Hash
}

// ToHash encodes c as a Redis hash.
func (c *Context) ToHash() Hash {
	w := newWriter(c.Extra)
	w.u64("id", c.ID)
	if c.Name != "" {
		w.str("name", c.Name)
	}
	w.ids(RoleAdmin.ListField(), c.Admins)
	w.ids(RoleReader.ListField(), c.Readers)
	w.ids(RoleExecutor.ListField(), c.Executors)
	w.i64("created_at", c.CreatedAt)
	w.i64("updated_at", c.UpdatedAt)
	return w.h
}

// ContextFromHash decodes a Context.
func ContextFromHash(key string, h Hash) (*Context, error) {
	r := newReader(key, h)
	c := &Context{
		ID:        r.u64("id"),
		Name:      r.str("name"),
		Admins:    r.ids(RoleAdmin.ListField()),
		Readers:   r.ids(RoleReader.ListField()),
		Executors: r.ids(RoleExecutor.ListField()),
		CreatedAt: r.i64("created_at"),
		UpdatedAt: r.i64("updated_at"),
	}
	c.Extra = r.extra()
	return c, r.err
}
