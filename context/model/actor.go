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

// Role is an actor's role in a context.
type Role string

// Roles, weakest first.
const (
	RoleReader   Role = "reader"
	RoleExecutor Role = "executor"
	RoleAdmin    Role = "admin"
)

// ToHash encodes c as a Redis hash.
func (c *Context) ToHash() Hash {
	w := newWriter(c.Extra)
	w.u64("id", c.ID)
	if c.Name != "" {
		w.str("name", c.Name)
	}
	w.ids("admins", c.Admins)
	w.ids("readers", c.Readers)
	w.ids("executors", c.Executors)
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
		Admins:    r.ids("admins"),
		Readers:   r.ids("readers"),
		Executors: r.ids("executors"),
		CreatedAt: r.i64("created_at"),
		UpdatedAt: r.i64("updated_at"),
	}
	c.Extra = r.extra()
	return c, r.err
}

// Has reports whether actor holds role (or a stronger one) in c. Admins may
// do everything; executors may also read.
func (c *Context) Has(actor uint64, role Role) bool {
	in := func(l []uint64) bool {
		for _, x := range l {
			if x == actor {
				return true
			}
		}
		return false
	}
	switch role {
	case RoleAdmin:
		return in(c.Admins)
	case RoleExecutor:
		return in(c.Admins) || in(c.Executors)
	case RoleReader:
		return in(c.Admins) || in(c.Executors) || in(c.Readers)
	}
	return false
}

// Grant adds actor to role's list; it reports whether anything changed.
func (c *Context) Grant(actor uint64, role Role) bool {
	l := c.list(role)
	if l == nil {
		return false
	}
	for _, x := range *l {
		if x == actor {
			return false
		}
	}
	*l = append(*l, actor)
	return true
}

// Revoke removes actor from role's list; it reports whether anything changed.
func (c *Context) Revoke(actor uint64, role Role) bool {
	l := c.list(role)
	if l == nil {
		return false
	}
	for i, x := range *l {
		if x == actor {
			*l = append((*l)[:i:i], (*l)[i+1:]...)
			return true
		}
	}
	return false
}

func (c *Context) list(role Role) *[]uint64 {
	switch role {
	case RoleAdmin:
		return &c.Admins
	case RoleExecutor:
		return &c.Executors
	case RoleReader:
		return &c.Readers
	}
	return nil
}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleReader || r == RoleExecutor || r == RoleAdmin }
