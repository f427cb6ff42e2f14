package central

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// The owner's side of the players' accounts of a fleet (`central
// players`, migrations/0007): support staff open accounts, review them,
// change limits, record breaks, unlock cards, import the exclusion list
// and read the register of large wins. Every change is one of the
// migration's functions, the same a kiosk's player reaches, so that the
// lone kiosk's rules are written once for the fleet; the program checks
// what it is given first, with the engine's rules. actor names who acts
// in the player log.

// checkActor refuses a change nobody is named for.
func checkActor(actor string) error {
	if strings.TrimSpace(actor) == "" || len(actor) > 64 {
		return errors.New("central: say who acts (a name of 1 to 64 characters)")
	}
	return nil
}

// playerOpenSQL opens an account: holder $1, born $2, document $3 $4
// (identity key $5), limits $6 (a JSON object of cents by limit name),
// PIN $7, by $8 (migrations/0007).
const playerOpenSQL = "SELECT sf_player_open($1, $2::date, $3, $4, $5, $6::jsonb, $7, $8)"

// OpenPlayer opens a fleet account with the lone kiosk's rules (the
// holder of age and not listed, the document holding no other account,
// the weekly deposit and stake limits at least, a PIN of 4 to 8 digits
// not easy to guess), and issues its card: the account's Card and
// Player. Its limits are in force at once.
func (a *Admin) OpenPlayer(ctx context.Context, actor string, id engine.Identity, limits engine.Limits, pin string) (engine.Account, error) {
	if err := checkActor(actor); err != nil {
		return engine.Account{}, err
	}
	if err := (engine.OpenRequest{Identity: id, Limits: limits, PIN: pin}).Check(time.Now().UTC()); err != nil {
		return engine.Account{}, err
	}
	cents := map[string]int64{}
	for k, v := range limits {
		cents[k.String()] = int64(v)
	}
	lj, err := json.Marshal(cents)
	if err != nil {
		return engine.Account{}, err
	}
	key := id.Key()
	ans, err := queryAnswer(ctx, a.pool, playerOpenSQL, id.Holder, id.Born.Format(time.DateOnly), id.DocType, id.DocNumber, key, string(lj), pin, actor)
	switch {
	case err != nil:
		return engine.Account{}, fmt.Errorf("central: open account: %w", err)
	case ans.Status == statusListed:
		return engine.Account{}, &engine.IdentityError{Problem: engine.IdentityListed, Input: key}
	case ans.Status == statusTaken:
		return engine.Account{}, &engine.IdentityError{Problem: engine.IdentityTaken, Input: key}
	case ans.Status != statusOK:
		return engine.Account{}, ans.refusal("")
	}
	return ans.Account.account()
}

// players reads the accounts with their open leases: card's, or every
// one for nil.
func (a *Admin) players(ctx context.Context, card *engine.Card) ([]engine.FleetAccount, error) {
	var only *string // NULL: every account
	if card != nil {
		s := string(*card)
		only = &s
	}
	var out []engine.FleetAccount
	err := pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		byPlayer := map[string]int{}
		rows, _ := tx.Query(ctx, query("players_list"), only)
		err := forEachRowByName(rows, func(r struct {
			Account accountJSON `db:"account"`
		}) error {
			acct, err := r.Account.account()
			if err != nil {
				return err
			}
			byPlayer[acct.Player] = len(out)
			out = append(out, engine.FleetAccount{Account: acct, Listed: r.Account.Listed})
			return nil
		})
		if err != nil {
			return err
		}
		rows, _ = tx.Query(ctx, query("player_leases"), only)
		return forEachRowByName(rows, func(r playerLeaseJSON) error {
			i, ok := byPlayer[r.Player]
			if !ok {
				return nil
			}
			l, err := r.lease()
			out[i].Leases = append(out[i].Leases, l)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("central: players: %w", err)
	}
	return out, nil
}

// Players lists the fleet's accounts by card, with their open leases.
func (a *Admin) Players(ctx context.Context) ([]engine.FleetAccount, error) {
	return a.players(ctx, nil)
}

// playerViewSQL is account $1 as sf_player_view writes it (migrations/0009).
const playerViewSQL = "SELECT sf_player_view($1)"

// Player is card's account, its open leases, what each of its limits
// counts now, and its funds at each kiosk: what an attendant's look-up
// at a kiosk shows (Client.PlayerLookup).
func (a *Admin) Player(ctx context.Context, card engine.Card) (engine.FleetAccount, error) {
	var v *playerView
	if err := a.pool.QueryRow(ctx, playerViewSQL, string(card)).Scan(&v); err != nil {
		return engine.FleetAccount{}, fmt.Errorf("central: player %s: %w", card, err)
	}
	if v == nil {
		return engine.FleetAccount{}, fmt.Errorf("%w: %s", engine.ErrUnknownCard, card.Spaced())
	}
	return v.fleetAccount()
}

// playerSetLimitOwnerSQL changes player $1's limit $2 to $3 cents, by $4
// (migrations/0007; no kiosk: NULL).
const playerSetLimitOwnerSQL = "SELECT sf_player_set_limit($1, $2, $3, $4, NULL)"

// SetPlayerLimit changes a limit of card's account (amount 0 removes it)
// with the lone kiosk's rules: a decrease at once, an increase or a
// removal after the cooling-off (fleet_settings), a change while another
// waits refused (*engine.PendingError), a mandatory limit never removed.
// A decrease revokes the open leases that may use more than it leaves
// them: their kiosks renew them for the new room.
func (a *Admin) SetPlayerLimit(ctx context.Context, actor string, card engine.Card, k engine.LimitKey, amount engine.Cents) (engine.PendingLimit, error) {
	if err := checkActor(actor); err != nil {
		return engine.PendingLimit{}, err
	}
	if !slices.Contains(engine.LimitKeys, k) || amount < 0 || amount > engine.MaxAmount {
		return engine.PendingLimit{}, fmt.Errorf("%w: %s %s", engine.ErrBadLimit, k, amount)
	}
	ans, err := queryAnswer(ctx, a.pool, playerSetLimitOwnerSQL, string(card), k.String(), int64(amount), actor)
	if err != nil {
		return engine.PendingLimit{}, fmt.Errorf("central: limit %s: %w", k, err)
	}
	if err := ans.refusal(card); err != nil {
		return engine.PendingLimit{}, fmt.Errorf("limit %s: %w", k, err)
	}
	return ans.Change.pending()
}

// playerBreakOwnerSQL records break $2 of player $1, by $3 (migrations/0007).
const playerBreakOwnerSQL = "SELECT sf_player_break($1, $2, $3, NULL)"

// PlayerBreak records a break of card's account from now (the player
// asked an attendant): never shorter than the break in force (an
// *engine.ExcludedError with Shorter). Every open lease of the account is
// revoked: every kiosk ends the player's session at its next round.
func (a *Admin) PlayerBreak(ctx context.Context, actor string, card engine.Card, b engine.Break) (engine.Exclusion, error) {
	if err := checkActor(actor); err != nil {
		return engine.Exclusion{}, err
	}
	if !slices.Contains(engine.Breaks, b) {
		return engine.Exclusion{}, fmt.Errorf("%w: %d", engine.ErrBadBreak, b)
	}
	ans, err := queryAnswer(ctx, a.pool, playerBreakOwnerSQL, string(card), b.String(), actor)
	if err != nil {
		return engine.Exclusion{}, fmt.Errorf("central: break: %w", err)
	}
	if err := ans.refusal(card); err != nil {
		return engine.Exclusion{}, err
	}
	return ans.Break.exclusion(), nil
}

// playerUnlockSQL ends player $1's card lockout, setting PIN $2 unless it
// is empty, by $3 (migrations/0007).
const playerUnlockSQL = "SELECT sf_player_unlock($1, $2, $3)"

// UnlockPlayerCard ends a card's lockout after wrong PINs (the holder
// present), and sets newPIN unless it is empty.
func (a *Admin) UnlockPlayerCard(ctx context.Context, actor string, card engine.Card, newPIN string) error {
	if err := checkActor(actor); err != nil {
		return err
	}
	if newPIN != "" {
		if err := engine.CheckCardPIN(newPIN); err != nil {
			return err
		}
	}
	ans, err := queryAnswer(ctx, a.pool, playerUnlockSQL, string(card), newPIN, actor)
	if err != nil {
		return fmt.Errorf("central: unlock card: %w", err)
	}
	return ans.refusal(card)
}

// importChunk is how many identity keys one transaction lists, as the
// lone kiosk does.
const importChunk = 500

// listIdentitiesSQL lists identity keys $1, by $2: how many were new, and
// the accounts holding them (migrations/0007).
const listIdentitiesSQL = "SELECT added, accounts FROM sf_list_identities($1, $2)"

// ImportExclusions puts identity keys (engine.IdentityKey's form) on the
// exclusion list, a chunk per transaction; a key listed already is
// skipped, so an import cut short is run again. The open leases of the
// accounts holding a key newly listed are revoked. It returns how many
// keys it added and those accounts.
func (a *Admin) ImportExclusions(ctx context.Context, actor string, keys []string) (added int, accounts []string, err error) {
	if err := checkActor(actor); err != nil {
		return 0, nil, err
	}
	for i, k := range keys {
		if _, _, ok := strings.Cut(k, ":"); !ok || len(k) > 129 || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' }) {
			return 0, nil, fmt.Errorf("%w: exclusion list line %d: %q is not an identity key (TYPE:NUMBER)", engine.ErrBadIdentity, i+1, k)
		}
	}
	for start := 0; start < len(keys); start += importChunk {
		chunk := keys[start:min(start+importChunk, len(keys))]
		var n int
		var players []string
		if err := a.pool.QueryRow(ctx, listIdentitiesSQL, chunk, actor).Scan(&n, &players); err != nil {
			return added, accounts, fmt.Errorf("central: exclusion list: %w", err)
		}
		added, accounts = added+n, append(accounts, players...)
	}
	return added, accounts, nil
}

// RegisterEntry is a line of the fleet's register of large wins: a
// prize at or above the threshold, with its holder, the kiosk that sold
// it, and how it was paid by hand.
type RegisterEntry struct {
	Time       time.Time    `json:"time"`
	Kiosk      string       `json:"kiosk"`
	Player     string       `json:"player"`
	Holder     string       `json:"holder"`   // "" for a wallet without a fleet account
	Document   string       `json:"document"` // the account's identity key
	Ticket     string       `json:"ticket"`
	StakeCents engine.Cents `json:"stake_cents"`
	PrizeCents engine.Cents `json:"prize_cents"`
	// HandPay is how the prize was paid by hand, as its kiosk pushed the
	// payout; nil while the central holds no hand pay of it.
	HandPay *HandPaid `json:"hand_pay"`
}

// HandPaid is a prize paid by hand at its kiosk (migrations/0008): when,
// and the register's facts.
type HandPaid struct {
	Time time.Time `json:"time"`
	engine.HandPay
}

// Register lists the prizes of least and more the kiosks' synced sales
// credited (engine.Protection's PayoutThreshold is the lone kiosk's),
// oldest first.
func (a *Admin) Register(ctx context.Context, least engine.Cents) ([]RegisterEntry, error) {
	rows, _ := a.pool.Query(ctx, query("player_register"), int64(least))
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[struct {
		At        time.Time  `db:"at"`
		Kiosk     string     `db:"kiosk"`
		Player    string     `db:"player"`
		Holder    string     `db:"holder"`
		Document  string     `db:"doc_key"`
		Ticket    string     `db:"ticket"`
		Stake     int64      `db:"debit_cents"`
		Prize     int64      `db:"credit_cents"`
		PaidAt    *time.Time `db:"paid_at"`
		Seen      string     `db:"paid_document"`
		CheckedBy string     `db:"checked_by"`
		PaidBy    string     `db:"paid_by"`
		Method    string     `db:"method"`
		Reference string     `db:"reference"`
	}])
	if err != nil {
		return nil, fmt.Errorf("central: register: %w", err)
	}
	reg := make([]RegisterEntry, len(out))
	for i, r := range out {
		reg[i] = RegisterEntry{Time: r.At, Kiosk: r.Kiosk, Player: r.Player, Holder: r.Holder, Document: r.Document, Ticket: r.Ticket,
			StakeCents: engine.Cents(r.Stake), PrizeCents: engine.Cents(r.Prize)}
		if r.PaidAt != nil {
			reg[i].HandPay = &HandPaid{Time: *r.PaidAt, HandPay: engine.HandPay{Document: r.Seen, CheckedBy: r.CheckedBy, PaidBy: r.PaidBy,
				Method: r.Method, Reference: r.Reference}}
		}
	}
	return reg, nil
}
