package engine

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"time"
)

// The account log is the history of the accounts: every opening, identity
// check, limit change, break, listing, session, reality check, held prize
// and hand-pay, one record each, numbered from 1 and hash-chained like the
// blocks' records. It lives in the store's settings (so that the journal
// keeps it and recover rebuilds it with the rest), beside each account's
// state as it stands; the audit folds the log again and checks the ledgers
// against it.

// AccountKind says what an account record records.
type AccountKind uint8

// The account record kinds.
const (
	AccOpened          AccountKind = iota + 1 // Identity, Card, Limits (one record per limit follows); by an attendant
	AccCompleted                              // a former wallet given its holder: Identity, Card
	AccPIN                                    // the card's PIN set (Text: its hash)
	AccPINLocked                              // too many wrong PINs
	AccPINUnlocked                            // an attendant unlocked the card
	AccLimit                                  // Limit to Amount (0: removed) from Effective
	AccBreak                                  // a break from Time to Until (zero: indefinite)
	AccListed                                 // Text: an identity key put on the exclusion list
	AccSessionStart                           // Effective: when the first reality check is due
	AccRealityCheck                           // acknowledged: Staked, Won so far; Effective: the next one due
	AccSessionEnd                             // Staked, Won
	AccHeld                                   // Ticket's Amount held for an attendant
	AccIdentityChecked                        // Ticket's holder identity checked: Text the document seen
	AccHandPaid                               // Ticket's Amount paid: Text "method|reference"
	AccSetAside                               // Ticket's Amount set aside (at or above the payout threshold)
)

var accountKinds = map[AccountKind]string{
	AccOpened: "opened", AccCompleted: "completed", AccPIN: "pin-set", AccPINLocked: "pin-locked", AccPINUnlocked: "pin-unlocked",
	AccLimit: "limit", AccBreak: "break", AccListed: "listed", AccSessionStart: "session-start", AccRealityCheck: "reality-check",
	AccSessionEnd: "session-end", AccHeld: "prize-held", AccIdentityChecked: "identity-checked", AccHandPaid: "hand-paid", AccSetAside: "set-aside",
}

func (k AccountKind) String() string {
	if s, ok := accountKinds[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// AccountRecord is one entry of the account log. Which fields mean
// something depends on Kind (see the kinds).
type AccountRecord struct {
	Seq       uint64
	Prev      Hash
	Time      time.Time
	Kind      AccountKind
	Player    string // the account's wallet; "" for a listing
	Actor     string // "player", "operator", "cli", the kiosk
	Identity  Identity
	Card      Card
	Limit     LimitKey
	Amount    Cents
	Effective time.Time // AccLimit: when it takes effect; sessions: the next reality check
	Until     time.Time // AccBreak (zero: indefinite)
	Ticket    Ticket
	Staked    Cents
	Won       Cents
	Text      string
}

// AppendBinary appends the record's canonical encoding to b.
func (r AccountRecord) AppendBinary(b []byte) ([]byte, error) {
	e := encoder{b: b}
	e.u8(codecVersion)
	e.u64(r.Seq)
	e.bytes(r.Prev[:])
	e.time(r.Time)
	e.u8(uint8(r.Kind))
	e.str(r.Player)
	e.str(r.Actor)
	r.Identity.encode(&e)
	e.str(string(r.Card))
	e.u8(uint8(r.Limit.Kind))
	e.u8(uint8(r.Limit.Window))
	e.i64(int64(r.Amount))
	e.time(r.Effective)
	e.time(r.Until)
	e.ticket(r.Ticket)
	e.i64(int64(r.Staked))
	e.i64(int64(r.Won))
	e.str(r.Text)
	return e.b, nil
}

// MarshalBinary is the record's canonical encoding.
func (r AccountRecord) MarshalBinary() ([]byte, error) { return r.AppendBinary(nil) }

// UnmarshalBinary decodes a record.
func (r *AccountRecord) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("account record")
	r.Seq = d.u64()
	r.Prev = d.hash()
	r.Time = d.time()
	r.Kind = AccountKind(d.u8())
	r.Player = d.str()
	r.Actor = d.str()
	r.Identity = decodeIdentity(&d)
	r.Card = Card(d.str())
	r.Limit = LimitKey{LimitKind(d.u8()), Window(d.u8())}
	r.Amount = Cents(d.i64())
	r.Effective = d.time()
	r.Until = d.time()
	r.Ticket = d.ticket()
	r.Staked = Cents(d.i64())
	r.Won = Cents(d.i64())
	r.Text = d.str()
	return d.done("account record")
}

// String names the record in logs and test failures: number, time, kind, account.
func (r AccountRecord) String() string {
	return fmt.Sprintf("%d %s %s %s", r.Seq, r.Time.Format(time.RFC3339), r.Kind, r.Player)
}

// Hash is the SHA-256 of the record's canonical encoding.
func (r AccountRecord) Hash() Hash {
	b, _ := r.MarshalBinary()
	return sha256.Sum256(b)
}

func (id Identity) encode(e *encoder) {
	e.str(id.Holder)
	e.time(id.Born)
	e.str(id.DocType)
	e.str(id.DocNumber)
}

func decodeIdentity(d *decoder) Identity {
	return Identity{Holder: d.str(), Born: d.time(), DocType: d.str(), DocNumber: d.str()}
}

// The settings the accounts live in.
const (
	accountPrefix    = "account/"   // + player: the account as the desk leaves it
	playPrefix       = "play/"      // + player: its session, usage, prizes set aside and held
	cardPrefix       = "card/"      // + card: the player it opens
	listedPrefix     = "listed/"    // + identity key: the record that listed it
	accountLogPrefix = "acctlog/"   // + %016x seq: a record
	accountLogHead   = "acctlog"    // the last record's seq and hash
	accountCounter   = "acct.cards" // the number of cards issued
)

func accountLogKey(seq uint64) string { return fmt.Sprintf("%s%016x", accountLogPrefix, seq) }

// accountLog appends records to the account log inside a transaction.
type accountLog struct {
	tx   *journalTx
	head JournalHead // reused: the last record's seq and hash
	read bool
}

// append numbers r, chains it after the last record and stores it.
func (l *accountLog) append(r AccountRecord) (AccountRecord, error) {
	if !l.read {
		h, err := readAccountHead(l.tx)
		if err != nil {
			return r, err
		}
		l.head, l.read = h, true
	}
	r.Seq, r.Prev = l.head.Seq+1, l.head.Hash
	v, _ := r.MarshalBinary()
	if err := l.tx.PutSetting(accountLogKey(r.Seq), v); err != nil {
		return r, err
	}
	l.head = JournalHead{Seq: r.Seq, Hash: r.Hash()}
	hv := append(encodeU64(r.Seq), l.head.Hash[:]...)
	return r, l.tx.PutSetting(accountLogHead, hv)
}

func encodeU64(v uint64) []byte { e := encoder{}; e.u64(v); return e.b }

func readAccountHead(tx ReadTx) (JournalHead, error) {
	v, ok, err := tx.Setting(accountLogHead)
	if err != nil || !ok {
		return JournalHead{}, err
	}
	d := decoder{b: v}
	h := JournalHead{Seq: d.u64(), Hash: d.hash()}
	return h, d.done("account log head")
}

// accountRecords calls fn for every record of the account log in order,
// checking the chain.
func accountRecords(tx ReadTx, fn func(AccountRecord) error) error {
	head, err := readAccountHead(tx)
	if err != nil {
		return err
	}
	var prev Hash
	for seq := uint64(1); seq <= head.Seq; seq++ {
		v, ok, err := tx.Setting(accountLogKey(seq))
		if err != nil {
			return err
		}
		var r AccountRecord
		if !ok {
			return fmt.Errorf("%w: account log record %d missing", ErrCorrupt, seq)
		}
		if err := r.UnmarshalBinary(v); err != nil {
			return fmt.Errorf("account log record %d: %w", seq, err)
		}
		if r.Seq != seq || r.Prev != prev {
			return fmt.Errorf("%w: account log record %d does not follow record %d", ErrCorrupt, seq, seq-1)
		}
		prev = r.Hash()
		if err := fn(r); err != nil {
			return err
		}
	}
	if head.Seq > 0 && prev != head.Hash {
		return fmt.Errorf("%w: account log head does not match its last record", ErrCorrupt)
	}
	return nil
}

// An account is kept in two settings: what changes at the desk (holder,
// PIN, limits, break: accountPrefix) and what every sale and movement
// changes (session, usage, what is set aside or held, the account's time:
// playPrefix), so that a sale writes only the second, small one.

// MarshalBinary encodes what changes at the desk.
func (a Account) MarshalBinary() ([]byte, error) {
	e := encoder{b: make([]byte, 0, 256)}
	e.u8(codecVersion)
	e.str(a.Player)
	e.str(string(a.Card))
	a.Identity.encode(&e)
	e.time(a.Opened)
	e.str(a.OpenedBy)
	e.u8(boolByte(a.Complete))
	e.str(a.PINHash)
	e.u8(uint8(a.PINFails))
	e.u8(boolByte(a.PINLocked))
	keys := slices.SortedFunc(maps.Keys(a.Limits), func(x, y LimitKey) int { return int(x.Kind)*8 + int(x.Window) - int(y.Kind)*8 - int(y.Window) })
	e.u8(uint8(len(keys)))
	for _, k := range keys {
		e.u8(uint8(k.Kind))
		e.u8(uint8(k.Window))
		e.i64(int64(a.Limits[k]))
	}
	e.u8(uint8(len(a.Pending)))
	for _, p := range a.Pending {
		e.u8(uint8(p.Key.Kind))
		e.u8(uint8(p.Key.Window))
		e.i64(int64(p.Amount))
		e.time(p.Requested)
		e.time(p.Effective)
	}
	e.time(a.Break.Since)
	e.time(a.Break.Until)
	e.u8(boolByte(a.Break.Indefinite))
	return e.b, nil
}

// UnmarshalBinary decodes what changes at the desk.
func (a *Account) UnmarshalBinary(b []byte) error {
	d := decoder{b: b}
	d.version("account")
	a.Player = d.str()
	a.Card = Card(d.str())
	a.Identity = decodeIdentity(&d)
	a.Opened = d.time()
	a.OpenedBy = d.str()
	a.Complete = d.u8() == 1
	a.PINHash = d.str()
	a.PINFails = int(d.u8())
	a.PINLocked = d.u8() == 1
	a.Limits = Limits{}
	for n := int(d.u8()); n > 0 && d.err == nil; n-- {
		k := LimitKey{LimitKind(d.u8()), Window(d.u8())}
		a.Limits[k] = Cents(d.i64())
	}
	a.Pending = nil
	for n := int(d.u8()); n > 0 && d.err == nil; n-- {
		p := PendingLimit{Key: LimitKey{LimitKind(d.u8()), Window(d.u8())}, Amount: Cents(d.i64())}
		p.Requested, p.Effective = d.time(), d.time()
		a.Pending = append(a.Pending, p)
	}
	a.Break = Exclusion{Since: d.time(), Until: d.time(), Indefinite: d.u8() == 1}
	return d.done("account")
}

// heldChecked marks, in a held prize's encoding, an identity check
// followed by the document seen and who checked it; 1 marks a check
// recorded before they were kept, 0 none.
const heldChecked = 2

// encodePlay encodes what every sale and movement changes.
func (a Account) encodePlay() []byte {
	e := encoder{b: make([]byte, 0, 96+len(a.usage)*32)}
	e.u8(codecVersion)
	e.u8(boolByte(a.Session.Open))
	e.time(a.Session.Start)
	e.time(a.Session.Due)
	e.i64(int64(a.Session.Staked))
	e.i64(int64(a.Session.Won))
	e.i64(int64(a.SetAside))
	e.u8(uint8(len(a.Held)))
	for _, h := range a.Held {
		e.ticket(h.Ticket)
		e.i64(int64(h.Prize))
		if h.IdentityChecked {
			e.u8(heldChecked)
			e.str(h.Document)
			e.str(h.CheckedBy)
		} else {
			e.u8(0)
		}
	}
	e.time(a.Clock)
	a.usage.encode(&e)
	if a.use.ID != 0 { // a fleet account's; absent before leases
		a.use.encode(&e)
	}
	return e.b
}

// decodePlay decodes what encodePlay wrote into a.
func (a *Account) decodePlay(b []byte) error {
	d := decoder{b: b}
	d.version("account play")
	a.Session = Session{Open: d.u8() == 1, Start: d.time(), Due: d.time(), Staked: Cents(d.i64()), Won: Cents(d.i64())}
	a.SetAside = Cents(d.i64())
	a.Held = nil
	for n := int(d.u8()); n > 0 && d.err == nil; n-- {
		h := HeldPrize{Ticket: d.ticket(), Prize: Cents(d.i64())}
		checked := d.u8()
		h.IdentityChecked = checked == 1 || checked == heldChecked
		if checked == heldChecked {
			h.Document, h.CheckedBy = d.str(), d.str()
		}
		a.Held = append(a.Held, h)
	}
	a.Clock = d.time()
	a.usage = decodeUsage(&d)
	a.use = leaseUse{}
	if len(d.b) > 0 {
		a.use = decodeLeaseUse(&d)
	}
	return d.done("account play")
}

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// readAccount reads the account of player, if it has one.
func readAccount(tx ReadTx, player string) (Account, bool, error) {
	v, ok, err := tx.Setting(accountPrefix + player)
	if err != nil || !ok {
		return Account{}, false, err
	}
	var a Account
	if err := a.UnmarshalBinary(v); err != nil {
		return Account{}, false, fmt.Errorf("account %s: %w", player, err)
	}
	if v, ok, err = tx.Setting(playPrefix + player); err != nil {
		return Account{}, false, err
	} else if !ok {
		return Account{}, false, fmt.Errorf("%w: account %s without its play", ErrCorrupt, player)
	}
	if err := a.decodePlay(v); err != nil {
		return Account{}, false, fmt.Errorf("account %s: %w", player, err)
	}
	return a, true, nil
}

// putAccount writes the whole account.
func putAccount(tx Tx, a Account) error {
	v, _ := a.MarshalBinary()
	if err := tx.PutSetting(accountPrefix+a.Player, v); err != nil {
		return err
	}
	return putPlay(tx, a)
}

// putPlay writes what a sale or a movement changes of the account.
func putPlay(tx Tx, a Account) error { return tx.PutSetting(playPrefix+a.Player, a.encodePlay()) }

// playerOfCard is the wallet a card opens.
func playerOfCard(tx ReadTx, c Card) (string, error) {
	v, ok, err := tx.Setting(cardPrefix + string(c))
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrUnknownCard, c.Spaced())
	}
	return string(v), nil
}

// listed reports whether an identity key is on the exclusion list.
func listed(tx ReadTx, key string) (bool, error) {
	_, ok, err := tx.Setting(listedPrefix + key)
	return ok, err
}
