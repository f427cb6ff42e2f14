package central

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// The players' accounts of a fleet (#31, migrations/0007): the kiosk's
// side, Client implementing engine.PlayerCentral, and the JSON answers of
// the player functions, which the owner's side (player_admin.go) reads
// too. A refusal the player must hear (a wrong PIN, a break, a lease the
// central ended) comes as a status in the answer rather than as an SQL
// error, so that what goes with it (a wrong PIN counted) commits; here it
// becomes the engine's typed error.

var _ engine.PlayerCentral = (*Client)(nil)

// ErrUnknownLease: a lease id the central does not know as one of the
// calling kiosk's (another kiosk's, or none). It comes wrapped with an
// *engine.LeaseRevokedError: to the kiosk, the lease serves no more.
var ErrUnknownLease = errors.New("central: not a lease of this kiosk")

// The statuses of the player functions' answers (migrations/0007).
const (
	statusOK           = "ok"
	statusUnknownCard  = "unknown-card"
	statusWrongPIN     = "wrong-pin"
	statusLocked       = "locked"
	statusIncomplete   = "incomplete"
	statusBreak        = "break"
	statusListed       = "listed"
	statusTaken        = "taken"
	statusShorter      = "shorter"
	statusPending      = "pending"
	statusRequired     = "required"
	statusRevoked      = "revoked"
	statusUnknownLease = "unknown-lease"
)

// playerAnswer is what a player function answers: a status, and what
// goes with it.
type playerAnswer struct {
	Status string `json:"status"`
	Left   int    `json:"left"`   // wrong-pin: the tries left
	Reason string `json:"reason"` // revoked: why (engine.Revoked*)
	// playerView: the account of a login, an opening (Account alone), a
	// look-up (the whole view).
	playerView
	Lease   *leaseJSON   `json:"lease"`   // ok of a login, a renewal
	Change  *pendingJSON `json:"change"`  // ok of a limit: the change as recorded
	Pending *pendingJSON `json:"pending"` // pending: the change that waits
	Break   *breakJSON   `json:"break"`   // break, shorter: the break in force; ok of a break: the new one
}

// rowQuerier is what runs a one-row query: a kiosk's pool, the owner's.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// queryAnswer runs sql, which returns a player function's JSON answer,
// and decodes it. The error is PostgreSQL's, as it came.
func queryAnswer(ctx context.Context, q rowQuerier, sql string, args ...any) (playerAnswer, error) {
	var raw []byte
	var a playerAnswer
	if err := q.QueryRow(ctx, sql, args...).Scan(&raw); err != nil {
		return a, err
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, errMalformed("answer", err)
	}
	return a, nil
}

// errMalformed is an answer of the central this program cannot read: a
// central of another version.
func errMalformed(what string, err error) error {
	return fmt.Errorf("%w: malformed %s from the central: %v", engine.ErrCentralUnavailable, what, err)
}

// refusal is the engine's error for the answer's status (nil for ok), of
// card's account.
func (a playerAnswer) refusal(card engine.Card) error {
	switch a.Status {
	case statusOK:
		return nil
	case statusUnknownCard:
		return fmt.Errorf("%w: %s", engine.ErrUnknownCard, card.Spaced())
	case statusWrongPIN:
		return &engine.PlayerPINError{Left: a.Left}
	case statusLocked:
		return engine.ErrCardLocked
	case statusIncomplete:
		return fmt.Errorf("%w: card %s", engine.ErrAccountIncomplete, card.Spaced())
	case statusListed:
		return fmt.Errorf("%w: card %s", engine.ErrListed, card.Spaced())
	case statusBreak, statusShorter:
		return &engine.ExcludedError{Break: a.Break.exclusion(), Shorter: a.Status == statusShorter}
	case statusPending:
		p, err := a.Pending.pending()
		if err != nil {
			return err
		}
		return &engine.PendingError{Pending: p}
	case statusRequired:
		return engine.ErrLimitRequired
	case statusRevoked:
		return &engine.LeaseRevokedError{Reason: a.Reason}
	case statusUnknownLease:
		return fmt.Errorf("%w: %w", ErrUnknownLease, &engine.LeaseRevokedError{Reason: engine.RevokedReturned})
	}
	return errMalformed("status", fmt.Errorf("%q", a.Status))
}

// accountJSON is an account as sf_player_json writes it.
type accountJSON struct {
	Player    string           `json:"player"`
	Holder    string           `json:"holder"`
	Born      string           `json:"born"`
	DocType   string           `json:"doc_type"`
	DocNumber string           `json:"doc_number"`
	OpenedAt  time.Time        `json:"opened_at"`
	OpenedBy  string           `json:"opened_by"`
	Complete  bool             `json:"complete"`
	PINLocked bool             `json:"pin_locked"`
	PINFails  int              `json:"pin_fails"`
	Listed    bool             `json:"listed"`
	Limits    map[string]int64 `json:"limits"` // in force
	Pending   []pendingJSON    `json:"pending"`
	Break     *breakJSON       `json:"break"`
}

// account is the engine's account (without a PIN hash: the central's
// never leaves it).
func (j *accountJSON) account() (engine.Account, error) {
	if j == nil {
		return engine.Account{}, errMalformed("account", errors.New("none"))
	}
	born, err := time.Parse(time.DateOnly, j.Born)
	if err != nil {
		return engine.Account{}, errMalformed("account", err)
	}
	a := engine.Account{Player: j.Player, Card: engine.Card(j.Player), Opened: j.OpenedAt, OpenedBy: j.OpenedBy, Complete: j.Complete,
		Identity: engine.Identity{Holder: j.Holder, Born: born, DocType: j.DocType, DocNumber: j.DocNumber},
		PINFails: j.PINFails, PINLocked: j.PINLocked, Limits: engine.Limits{}, Break: j.Break.exclusion()}
	for name, v := range j.Limits {
		k, err := engine.ParseLimitKey(name)
		if err != nil {
			return a, errMalformed("account", err)
		}
		a.Limits[k] = engine.Cents(v)
	}
	for _, p := range j.Pending {
		pl, err := p.pending()
		if err != nil {
			return a, err
		}
		a.Pending = append(a.Pending, pl)
	}
	return a, nil
}

// pendingJSON is a limit change as the central records it.
type pendingJSON struct {
	Limit     string    `json:"limit"`
	Amount    int64     `json:"amount"`
	Requested time.Time `json:"requested_at"`
	Effective time.Time `json:"effective_at"`
}

func (j *pendingJSON) pending() (engine.PendingLimit, error) {
	if j == nil {
		return engine.PendingLimit{}, errMalformed("limit change", errors.New("none"))
	}
	k, err := engine.ParseLimitKey(j.Limit)
	if err != nil {
		return engine.PendingLimit{}, errMalformed("limit change", err)
	}
	return engine.PendingLimit{Key: k, Amount: engine.Cents(j.Amount), Requested: j.Requested, Effective: j.Effective}, nil
}

// breakJSON is a break as sf_break_json writes it.
type breakJSON struct {
	Since      *time.Time `json:"since"`
	Until      *time.Time `json:"until"` // NULL when indefinite
	Indefinite bool       `json:"indefinite"`
}

// exclusion is the break as the engine holds it (none for nil).
func (j *breakJSON) exclusion() engine.Exclusion {
	var e engine.Exclusion
	if j == nil {
		return e
	}
	e.Indefinite = j.Indefinite
	if j.Since != nil {
		e.Since = *j.Since
	}
	if j.Until != nil {
		e.Until = *j.Until
	}
	return e
}

// leaseJSON is a lease as sf_lease_json writes it.
type leaseJSON struct {
	ID        int64      `json:"id"`
	Player    string     `json:"player"`
	GrantedAt time.Time  `json:"granted_at"`
	TTLms     int64      `json:"ttl_ms"`
	Rooms     []roomJSON `json:"rooms"`
}

// roomJSON is one kind's room of a lease (engine.LeaseRoom); Limit is ""
// when the lease's size bound it.
type roomJSON struct {
	Kind  string `json:"kind"`
	Room  int64  `json:"room"`
	Limit string `json:"limit"`
	Max   int64  `json:"max"`
	Used  int64  `json:"used"`
}

// limitKinds are the kinds of limits by the name the central gives them.
var limitKinds = map[string]engine.LimitKind{"deposit": engine.LimitDeposit, "stake": engine.LimitStake, "loss": engine.LimitLoss}

func (j *leaseJSON) lease() (engine.Lease, error) {
	if j == nil {
		return engine.Lease{}, errMalformed("lease", errors.New("none"))
	}
	rooms, err := leaseRooms(j.Rooms)
	return engine.Lease{ID: j.ID, Player: j.Player, Granted: j.GrantedAt, TTL: time.Duration(j.TTLms) * time.Millisecond, Rooms: rooms}, err
}

// leaseRooms reads a lease's rooms.
func leaseRooms(rs []roomJSON) ([]engine.LeaseRoom, error) {
	var out []engine.LeaseRoom
	for _, r := range rs {
		kind, ok := limitKinds[r.Kind]
		if !ok {
			return out, errMalformed("lease", fmt.Errorf("room of kind %q", r.Kind))
		}
		lr := engine.LeaseRoom{Kind: kind, Room: engine.Cents(r.Room), Max: engine.Cents(r.Max), Used: engine.Cents(r.Used)}
		if r.Limit != "" {
			k, err := engine.ParseLimitKey(r.Limit)
			if err != nil {
				return out, errMalformed("lease", err)
			}
			lr.Limit = k
		}
		out = append(out, lr)
	}
	return out, nil
}

// playerView is an account as sf_player_view writes it (migrations/0009).
type playerView struct {
	Account *accountJSON      `json:"account"`
	Usage   []usageJSON       `json:"usage"`
	Leases  []playerLeaseJSON `json:"leases"`
	Funds   []struct {
		Kiosk string `json:"kiosk"`
		Cents int64  `json:"cents"`
	} `json:"funds"`
}

// usageJSON is one limit's usage (engine.LimitUsage).
type usageJSON struct {
	Limit       string `json:"limit"`
	Max         int64  `json:"max"`
	Used        int64  `json:"used"`
	Outstanding int64  `json:"outstanding"`
}

// playerLeaseJSON is an open lease as sf_player_leases reads it, in a
// row or in a view.
type playerLeaseJSON struct {
	ID        int64      `db:"id" json:"id"`
	Player    string     `db:"player" json:"player"`
	Kiosk     string     `db:"kiosk" json:"kiosk"`
	GrantedAt time.Time  `db:"granted_at" json:"granted_at"`
	TTLms     int64      `db:"ttl_ms" json:"ttl_ms"`
	ExpiresAt time.Time  `db:"expires_at" json:"expires_at"`
	Rooms     []roomJSON `db:"rooms" json:"rooms"`
	Revoked   string     `db:"revoked" json:"revoked"`
	Deposited int64      `db:"deposited" json:"deposited"`
	Staked    int64      `db:"staked" json:"staked"`
}

func (r playerLeaseJSON) lease() (engine.PlayerLease, error) {
	l, err := (&leaseJSON{ID: r.ID, Player: r.Player, GrantedAt: r.GrantedAt, TTLms: r.TTLms, Rooms: r.Rooms}).lease()
	return engine.PlayerLease{Lease: l, Kiosk: r.Kiosk, Expires: r.ExpiresAt, Revoked: r.Revoked,
		Deposited: engine.Cents(r.Deposited), Staked: engine.Cents(r.Staked)}, err
}

// fleetAccount is the engine's account read from the view, its limits'
// usage in engine.LimitKeys order.
func (v *playerView) fleetAccount() (engine.FleetAccount, error) {
	a, err := v.Account.account()
	f := engine.FleetAccount{Account: a, Listed: v.Account != nil && v.Account.Listed}
	if err != nil {
		return f, err
	}
	for _, u := range v.Usage {
		k, err := engine.ParseLimitKey(u.Limit)
		if err != nil {
			return f, errMalformed("limit", err)
		}
		f.Usage = append(f.Usage, engine.LimitUsage{Limit: k, Max: engine.Cents(u.Max), Used: engine.Cents(u.Used), Outstanding: engine.Cents(u.Outstanding)})
	}
	slices.SortFunc(f.Usage, func(x, y engine.LimitUsage) int {
		return slices.Index(engine.LimitKeys, x.Limit) - slices.Index(engine.LimitKeys, y.Limit)
	})
	for _, r := range v.Leases {
		l, err := r.lease()
		if err != nil {
			return f, err
		}
		f.Leases = append(f.Leases, l)
	}
	for _, m := range v.Funds {
		f.Funds = append(f.Funds, engine.KioskFunds{Kiosk: m.Kiosk, Balance: engine.Cents(m.Cents)})
	}
	return f, nil
}

// playerLookupSQL is card $1's account for attendant $3, its PIN $2
// checked (migrations/0009).
const playerLookupSQL = "SELECT player_lookup($1, $2, $3)"

// PlayerLookup implements engine.PlayerCentral.
func (c *Client) PlayerLookup(ctx context.Context, card engine.Card, pin, actor string) (engine.FleetAccount, error) {
	a, err := queryAnswer(ctx, c.db, playerLookupSQL, string(card), pin, actor)
	if err != nil {
		return engine.FleetAccount{}, fmt.Errorf("player look-up: %w", translate(err))
	}
	if err := a.refusal(card); err != nil {
		return engine.FleetAccount{}, err
	}
	return a.fleetAccount()
}

// seqArg is a movement sequence number as the functions take it (bigint).
func seqArg(seq uint64) int64 { return int64(min(seq, math.MaxInt64)) }

// playerLoginSQL checks card $1's PIN $2 and reserves a lease (migrations/0007).
const playerLoginSQL = "SELECT player_login($1, $2)"

// PlayerLogin implements engine.PlayerCentral.
func (c *Client) PlayerLogin(ctx context.Context, card engine.Card, pin string) (engine.Account, engine.Lease, error) {
	a, err := queryAnswer(ctx, c.db, playerLoginSQL, string(card), pin)
	if err != nil {
		return engine.Account{}, engine.Lease{}, fmt.Errorf("player login: %w", translate(err))
	}
	if err := a.refusal(card); err != nil {
		return engine.Account{}, engine.Lease{}, err
	}
	acct, err := a.Account.account()
	if err != nil {
		return acct, engine.Lease{}, err
	}
	l, err := a.Lease.lease()
	return acct, l, err
}

// renewLeaseSQL ends lease $1 and reserves the next, once the central
// holds the kiosk's movements through $2 (migrations/0007).
const renewLeaseSQL = "SELECT renew_lease($1, $2)"

// RenewLease implements engine.PlayerCentral.
func (c *Client) RenewLease(ctx context.Context, id int64, movSeq uint64) (engine.Lease, error) {
	a, err := queryAnswer(ctx, c.db, renewLeaseSQL, id, seqArg(movSeq))
	if err != nil {
		return engine.Lease{}, fmt.Errorf("renew lease %d: %w", id, translate(err))
	}
	if err := a.refusal(""); err != nil {
		return engine.Lease{}, fmt.Errorf("renew lease %d: %w", id, err)
	}
	return a.Lease.lease()
}

// returnLeaseSQL ends lease $1, once the central holds the kiosk's
// movements through $2; its answer is a status (migrations/0007).
const returnLeaseSQL = "SELECT return_lease($1, $2)"

// ReturnLease implements engine.PlayerCentral. A lease returned already
// is returned again without an error (an answer lost).
func (c *Client) ReturnLease(ctx context.Context, id int64, movSeq uint64) error {
	var a playerAnswer
	if err := c.db.QueryRow(ctx, returnLeaseSQL, id, seqArg(movSeq)).Scan(&a.Status); err != nil {
		return fmt.Errorf("return lease %d: %w", id, translate(err))
	}
	if err := a.refusal(""); err != nil {
		return fmt.Errorf("return lease %d: %w", id, err)
	}
	return nil
}

// leaseStatesSQL is what the central says of the kiosk's leases among
// ids $1, as a JSON array (migrations/0007).
const leaseStatesSQL = "SELECT lease_states($1::bigint[])"

// LeaseStates implements engine.PlayerCentral: the kiosk's leases among
// ids (another kiosk's, or an unknown id, is left out). The account of a
// lease no longer open is left empty.
func (c *Client) LeaseStates(ctx context.Context, ids []int64) ([]engine.LeaseState, error) {
	var raw []byte
	if err := c.db.QueryRow(ctx, leaseStatesSQL, ids).Scan(&raw); err != nil {
		return nil, fmt.Errorf("lease states: %w", translate(err))
	}
	var js []struct {
		ID      int64        `json:"id"`
		Revoked string       `json:"revoked"`
		Account *accountJSON `json:"account"`
	}
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, errMalformed("lease states", err)
	}
	out := make([]engine.LeaseState, 0, len(js))
	for _, j := range js {
		s := engine.LeaseState{ID: j.ID, Revoked: j.Revoked}
		if j.Account != nil {
			a, err := j.Account.account()
			if err != nil {
				return out, err
			}
			s.Account = a
		}
		out = append(out, s)
	}
	return out, nil
}

// playerSetLimitSQL changes limit $2 to $3 cents, the player acting under
// lease $1 (migrations/0007).
const playerSetLimitSQL = "SELECT player_set_limit($1, $2, $3)"

// PlayerSetLimit implements engine.PlayerCentral.
func (c *Client) PlayerSetLimit(ctx context.Context, id int64, k engine.LimitKey, amount engine.Cents) (engine.PendingLimit, error) {
	a, err := queryAnswer(ctx, c.db, playerSetLimitSQL, id, k.String(), int64(amount))
	if err != nil {
		return engine.PendingLimit{}, fmt.Errorf("limit %s: %w", k, translate(err))
	}
	if err := a.refusal(""); err != nil {
		return engine.PendingLimit{}, fmt.Errorf("limit %s: %w", k, err)
	}
	return a.Change.pending()
}

// playerTakeBreakSQL records break $2, the player acting under lease $1
// (migrations/0007).
const playerTakeBreakSQL = "SELECT player_take_break($1, $2)"

// PlayerTakeBreak implements engine.PlayerCentral.
func (c *Client) PlayerTakeBreak(ctx context.Context, id int64, b engine.Break) (engine.Exclusion, error) {
	a, err := queryAnswer(ctx, c.db, playerTakeBreakSQL, id, b.String())
	if err != nil {
		return engine.Exclusion{}, fmt.Errorf("break %s: %w", b, translate(err))
	}
	if err := a.refusal(""); err != nil {
		return engine.Exclusion{}, fmt.Errorf("break %s: %w", b, err)
	}
	return a.Break.exclusion(), nil
}
