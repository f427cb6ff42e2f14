package engine

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The operator side of the terminal: the attendant's PIN and its lockout,
// the operator log, and the reports an attendant or an auditor reads.

// Settings the operator side keeps in the store.
const (
	// settingPIN holds the PIN's hash: "pbkdf2-sha256$<iterations>$<salt hex>$<key hex>".
	settingPIN = "operator.pin"
	// settingLock holds the wrong-PIN count and the end of a lockout (JSON).
	settingLock = "operator.lock"
)

// PINIterations is the PBKDF2-HMAC-SHA256 iteration count of a new PIN hash
// (about 0,1 s here): slow enough that the 10⁴ to 10¹² PINs of a stolen store
// cost hours to days each, fast enough for a login. A hash records its own
// count, so tests may lower this without making stored PINs unreadable.
var PINIterations = 210_000

const (
	pinSaltSize = 16
	pinKeySize  = 32
	pinMinLen   = 4
	pinMaxLen   = 12
	// MaxPINFailures wrong PINs in a row lock the operator panel...
	MaxPINFailures = 5
	// ...for LockoutDuration, even across restarts.
	LockoutDuration = 5 * time.Minute
)

// The operator errors. A lockout is reported as a *LockedError, which
// matches ErrLocked and says how long it lasts.
var (
	// ErrNoPIN: no PIN was ever set, so the operator panel stays closed.
	ErrNoPIN = errors.New("no operator PIN set: run `starfortune operator set-pin`")
	// ErrBadPIN: the PIN typed is not the operator's.
	ErrBadPIN = errors.New("wrong operator PIN")
	// ErrPINRule: a new PIN that is not 4 to 12 digits.
	ErrPINRule = errors.New("an operator PIN is 4 to 12 digits")
	// ErrLocked: too many wrong PINs; wait for the lockout to end.
	ErrLocked = errors.New("operator access locked after too many wrong PINs")
)

// LockedError is a login refused during a lockout.
type LockedError struct {
	Remaining time.Duration // until the lockout ends
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%v: try again in %d min %02d s", ErrLocked, int(e.Remaining.Minutes()), int(e.Remaining.Seconds())%60)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Actors of operator events.
const (
	ActorOperator = "operator" // the attendant, in the window's operator panel
	ActorCLI      = "cli"      // support staff on the command line
)

// pinLock is the lockout state, persisted so a restart does not reset it.
type pinLock struct {
	Failures int       `json:"failures"` // wrong PINs since the last success or lockout
	Until    time.Time `json:"until"`    // end of the current lockout (zero: none)
}

// CheckPIN says why pin cannot be an operator PIN, or nil.
func CheckPIN(pin string) error {
	if len(pin) < pinMinLen || len(pin) > pinMaxLen {
		return fmt.Errorf("%w: %d characters given", ErrPINRule, len(pin))
	}
	if !allDigits(pin) {
		return fmt.Errorf("%w: only digits 0 to 9", ErrPINRule)
	}
	return nil
}

// hashPIN derives the stored form of pin with a fresh salt.
func hashPIN(pin string) (string, error) {
	salt := make([]byte, pinSaltSize)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("PIN salt: %w", err)
	}
	key, err := pbkdf2.Key(sha256.New, pin, salt, PINIterations, pinKeySize)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("pbkdf2-sha256$%d$%x$%x", PINIterations, salt, key), nil
}

// verifyPIN compares pin with a stored hash in constant time.
func verifyPIN(stored, pin string) (bool, error) {
	parts := strings.Split(stored, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return false, fmt.Errorf("%w: operator PIN hash has an unknown format", ErrCorrupt)
	}
	iter, err1 := strconv.Atoi(parts[1])
	salt, err2 := hex.DecodeString(parts[2])
	want, err3 := hex.DecodeString(parts[3])
	if err := errors.Join(err1, err2, err3); err != nil || iter < 1 || len(want) == 0 {
		return false, fmt.Errorf("%w: operator PIN hash unreadable", ErrCorrupt)
	}
	got, err := pbkdf2.Key(sha256.New, pin, salt, iter, len(want))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// PINSet reports whether an operator PIN has been set.
func (s *Service) PINSet(ctx context.Context) (bool, error) {
	var ok bool
	err := s.store.View(ctx, func(tx ReadTx) (err error) {
		_, ok, err = tx.Setting(settingPIN)
		return err
	})
	return ok, err
}

// SetPIN sets (or replaces) the operator PIN, 4 to 12 digits, and ends any
// lockout. Only its salted slow hash is stored.
func (s *Service) SetPIN(ctx context.Context, pin string) error {
	if err := CheckPIN(pin); err != nil {
		return err
	}
	h, err := hashPIN(pin) // slow: before taking the writer's lock
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.record(ctx, func(tx Tx) error {
		_, had, err := tx.Setting(settingPIN)
		if err != nil {
			return err
		}
		if err := tx.PutSetting(settingPIN, []byte(h)); err != nil {
			return err
		}
		if err := putLock(tx, pinLock{}); err != nil {
			return err
		}
		action := "pin-set"
		if had {
			action = "pin-changed"
		}
		return s.putEvent(tx, ActorCLI, action, "")
	})
	if err != nil {
		return fmt.Errorf("set operator PIN: %w", err)
	}
	s.log.Info("operator PIN set")
	return nil
}

// Login checks the operator PIN. MaxPINFailures wrong PINs in a row lock
// the operator out for LockoutDuration (a *LockedError, matching
// ErrLocked); a PIN typed during a lockout is not even checked. Every
// login, failure, lockout and refusal is logged and recorded in the
// operator log. The operator log works when the terminal is out of service:
// that is when an attendant is needed.
func (s *Service) Login(ctx context.Context, pin string) error {
	var stored []byte
	var has bool
	var lock pinLock
	err := s.store.View(ctx, func(tx ReadTx) (err error) {
		if stored, has, err = tx.Setting(settingPIN); err != nil {
			return err
		}
		lock, err = readLock(tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("operator login: %w", err)
	}
	if !has {
		s.log.Warn("operator login refused: no PIN set")
		return ErrNoPIN
	}
	if locked := lockedFor(lock, s.Now()); locked != nil {
		s.operatorEvent(ctx, ActorOperator, "login-locked", locked.Error())
		return locked
	}
	ok, err := verifyPIN(string(stored), pin) // slow: outside the writer's lock
	if err != nil {
		return fmt.Errorf("operator login: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var result error
	err = s.record(ctx, func(tx Tx) error {
		now := s.Now().UTC()
		lock, err := readLock(tx) // again: another login may have changed it
		if err != nil {
			return err
		}
		if locked := lockedFor(lock, now); locked != nil {
			result = locked
			return s.putEvent(tx, ActorOperator, "login-locked", locked.Error())
		}
		if ok {
			result = nil
			if err := putLock(tx, pinLock{}); err != nil {
				return err
			}
			return s.putEvent(tx, ActorOperator, "login", "")
		}
		lock.Failures++
		left := MaxPINFailures - lock.Failures
		result = fmt.Errorf("%w (%d attempts left)", ErrBadPIN, left)
		if err := s.putEvent(tx, ActorOperator, "pin-failed", fmt.Sprintf("wrong PIN %d of %d", lock.Failures, MaxPINFailures)); err != nil {
			return err
		}
		if left <= 0 {
			lock = pinLock{Until: now.Add(LockoutDuration)}
			result = &LockedError{Remaining: LockoutDuration}
			if err := s.putEvent(tx, ActorOperator, "locked", fmt.Sprintf("%d wrong PINs: locked until %s", MaxPINFailures, lock.Until.Format(time.RFC3339))); err != nil {
				return err
			}
		}
		return putLock(tx, lock)
	})
	if err != nil {
		s.log.Error("operator login not recorded", "err", err)
		return fmt.Errorf("operator login: %w", err)
	}
	switch {
	case result == nil:
		s.log.Info("operator login")
	case errors.Is(result, ErrLocked):
		s.log.Warn("operator locked out", "err", result.Error())
	default:
		s.log.Warn("operator PIN failed", "err", result.Error())
	}
	return result
}

// lockedFor is the lockout in force at now, or nil. A lockout never lasts
// more than LockoutDuration from now, even if the clock went back.
func lockedFor(l pinLock, now time.Time) *LockedError {
	left := l.Until.Sub(now)
	if l.Until.IsZero() || left <= 0 {
		return nil
	}
	return &LockedError{Remaining: min(left, LockoutDuration)}
}

func readLock(tx ReadTx) (pinLock, error) {
	var l pinLock
	v, ok, err := tx.Setting(settingLock)
	if err != nil || !ok {
		return l, err
	}
	if err := json.Unmarshal(v, &l); err != nil {
		return l, fmt.Errorf("%w: operator lock state: %v", ErrCorrupt, err)
	}
	return l, nil
}

func putLock(tx Tx, l pinLock) error {
	v, _ := json.Marshal(l)
	return tx.PutSetting(settingLock, v)
}

// RecordOperator appends an action to the operator log, durably, and logs
// it. It works when the terminal is out of service.
func (s *Service) RecordOperator(ctx context.Context, actor, action, detail string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.record(ctx, func(tx Tx) error { return s.putEvent(tx, actor, action, detail) })
	if err != nil {
		s.log.Error("operator action not recorded", "actor", actor, "action", action, "detail", detail, "err", err)
		return fmt.Errorf("record operator action %s: %w", action, err)
	}
	return nil
}

// operatorEvent records an event whose failure to be recorded must not
// change the outcome (it is logged).
func (s *Service) operatorEvent(ctx context.Context, actor, action, detail string) {
	_ = s.RecordOperator(ctx, actor, action, detail)
}

// putEvent writes the next event of the operator log in tx and logs it.
// Called with mu held, so the numbering has one writer.
func (s *Service) putEvent(tx Tx, actor, action, detail string) error {
	last, err := lastOperatorSeq(tx)
	if err != nil {
		return err
	}
	e := OperatorEvent{Seq: last + 1, Time: s.Now().UTC(), Actor: actor, Action: action, Detail: detail}
	if err := tx.PutOperatorEvent(e); err != nil {
		return err
	}
	s.log.Info("operator action", "seq", e.Seq, "actor", actor, "action", action, "detail", detail)
	return nil
}

// lastOperatorSeq is the number of the operator log's last event (0: empty):
// a descending scan from the top stops at it.
func lastOperatorSeq(tx ReadTx) (uint64, error) {
	var last uint64
	err := tx.OperatorEvents(math.MaxUint64, 1, func(e OperatorEvent) error { last = e.Seq; return errStop })
	if err != nil && !errors.Is(err, errStop) {
		return 0, err
	}
	return last, nil
}

// OperatorLog returns up to limit events of the operator log, newest first.
func (s *Service) OperatorLog(ctx context.Context, limit int) (events []OperatorEvent, err error) {
	err = s.store.View(ctx, func(tx ReadTx) (err error) {
		events, err = firstOf(limit, func(fn func(OperatorEvent) error) error {
			return tx.OperatorEvents(math.MaxUint64, 1, fn) // downwards from the newest
		})
		return err
	})
	return events, err
}

// OperatorCredit is a cash-in by the attendant: a ledger entry by actor
// "operator", and the action in the operator log (refusals too).
func (s *Service) OperatorCredit(ctx context.Context, player string, amount Cents) (LedgerEntry, error) {
	return s.operatorMove(ctx, "credit", player, LedgerEntry{Kind: LedgerCredit, Credit: amount, Actor: ActorOperator})
}

// OperatorPayout is a cash-out by the attendant, never beyond the balance,
// recorded like OperatorCredit.
func (s *Service) OperatorPayout(ctx context.Context, player string, amount Cents) (LedgerEntry, error) {
	return s.operatorMove(ctx, "payout", player, LedgerEntry{Kind: LedgerPayout, Debit: amount, Actor: ActorOperator})
}

// operatorMove moves the funds and records the action in the operator log
// in the same transaction: a crash keeps both or neither. A refusal is
// recorded on its own.
func (s *Service) operatorMove(ctx context.Context, action, player string, l LedgerEntry) (LedgerEntry, error) {
	amount := l.Credit + l.Debit
	l, err := s.moveFunds(ctx, player, l, func(tx Tx, l LedgerEntry) error {
		return s.putEvent(tx, ActorOperator, action, fmt.Sprintf("player %s amount %s ledger %d balance %s", player, amount.Euros(), l.Seq, l.Balance.Euros()))
	})
	if err != nil {
		s.operatorEvent(ctx, ActorOperator, action+"-refused", fmt.Sprintf("player %s amount %s: %v", player, amount.Euros(), err))
	}
	return l, err
}

// Players lists the players that have a wallet, in order.
func (s *Service) Players(ctx context.Context) (players []string, err error) {
	err = s.store.View(ctx, func(tx ReadTx) error {
		return tx.Wallets(func(w Wallet) error { players = append(players, w.Player); return nil })
	})
	return players, err
}

// BlockStatus is where a block's sales stand: what an attendant checks and
// an auditor reconciles.
type BlockStatus struct {
	Ref        BlockRef
	Size       uint32
	Served     uint32
	Left       uint32
	LeftByTier Tally // units not yet sold, per line of PrizeTable
	Paid       Cents // prizes of the units sold so far
	Sales      Cents // stakes of the units sold so far
	Commitment Hash
	Seed       Seed // zero until the block is exhausted
}

// Exhausted reports whether every unit was sold (and the seed is public).
func (b BlockStatus) Exhausted() bool { return b.Served >= b.Size }

// Ratio is the payout so far, prizes over stakes (0 before any sale). It
// tends to TablePayoutRatio as the block sells.
func (b BlockStatus) Ratio() float64 {
	if b.Sales == 0 {
		return 0
	}
	return float64(b.Paid) / float64(b.Sales)
}

// TablePayoutRatio is the share of a whole block's sales that its prizes
// pay: 70 % for the règlement's table.
func TablePayoutRatio() float64 {
	var won int64
	for _, t := range PrizeTable {
		won += t.Multiple * int64(t.Count)
	}
	return float64(won) / BlockSize
}

// BlockReport reads every stored block of the emission: units served and
// left, left per prize tier, prizes paid and payout so far, commitment, and
// seed once exhausted. Each block is read back whole (a few milliseconds).
func (s *Service) BlockReport(ctx context.Context) ([]BlockStatus, error) {
	blocks, err := s.Blocks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]BlockStatus, 0, len(blocks))
	for _, info := range blocks {
		b, err := s.store.LoadBlock(ctx, info.Ref)
		if err != nil {
			return nil, fmt.Errorf("block report %s: %w", info.Ref, err)
		}
		st := BlockStatus{Ref: info.Ref, Size: info.Size, Served: min(info.Cursor.Served, info.Size),
			Commitment: info.Commitment, Seed: info.Seed}
		st.Left = st.Size - st.Served
		stake := info.Ref.Stake
		for i := 0; i < b.Len(); i++ {
			tier := int(b.Units[i*UnitSize])
			if tier >= NumTiers {
				return nil, fmt.Errorf("block report %s: %w: unit %d has tier %d", info.Ref, ErrCorrupt, i, tier)
			}
			if uint32(i) < st.Served {
				st.Paid += PrizeTable[tier].Prize(stake)
			} else {
				st.LeftByTier[tier]++
			}
		}
		st.Sales = Cents(st.Served) * stake
		out = append(out, st)
	}
	return out, nil
}

// WriteBlockReportCSV writes the block report as CSV with a header line.
// Amounts are in euros with a point as the decimal separator ("7.50"), as
// the header's "_eur" suffix says; ratios are fractions ("0.7012").
func WriteBlockReportCSV(w io.Writer, report []BlockStatus) error {
	cw := csv.NewWriter(w)
	header := []string{"block", "stake_eur", "size", "served", "left", "paid_eur", "sales_eur", "payout_ratio", "table_ratio"}
	for _, t := range PrizeTable {
		header = append(header, fmt.Sprintf("left_prize_%dx", t.Multiple))
	}
	header = append(header, "commitment_sha256", "seed")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, b := range report {
		row := []string{b.Ref.String(), b.Ref.Stake.Euros(), fmt.Sprint(b.Size), fmt.Sprint(b.Served), fmt.Sprint(b.Left),
			b.Paid.Euros(), b.Sales.Euros(), fmt.Sprintf("%.4f", b.Ratio()), fmt.Sprintf("%.4f", TablePayoutRatio())}
		for _, n := range b.LeftByTier {
			row = append(row, fmt.Sprint(n))
		}
		seed := ""
		if b.Exhausted() {
			seed = hex.EncodeToString(b.Seed[:])
		}
		row = append(row, b.Commitment.String(), seed)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteHistoryCSV writes units as CSV with a header line, amounts in euros
// with a point ("7.50"), times in RFC 3339 (UTC), slots from 1 (empty while
// the puck is not chosen).
func WriteHistoryCSV(w io.Writer, sales []Sale) error {
	cw := csv.NewWriter(w)
	err := cw.Write([]string{"time", "ticket", "player", "stake_eur", "prize_eur", "balance_before_eur", "balance_after_eur",
		"slot1", "drop1", "drop1_eur", "slot2", "drop2", "drop2_eur", "revealed"})
	if err != nil {
		return err
	}
	for _, s := range sales {
		row := []string{s.Time.UTC().Format(time.RFC3339), s.Ticket.String(), s.Player, s.Stake().Euros(), s.Prize().Euros(),
			s.BalanceBefore.Euros(), s.BalanceAfter.Euros()}
		for d, drop := range s.Unit.Drops {
			slot := ""
			if s.Reveal.Slots[d] != NoSlot {
				slot = fmt.Sprint(s.Reveal.Slots[d] + 1)
			}
			where := fmt.Sprintf("spot %d", drop.Dest.Index+1)
			if drop.Dest.Bonus {
				where = fmt.Sprintf("bonus %d", drop.Dest.Index+1)
			}
			row = append(row, slot, where, drop.Value(s.Stake()).Euros())
		}
		row = append(row, strconv.FormatBool(s.Done()))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
