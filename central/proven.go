package central

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Kiosks behind a pooler (migrations/0011): PgBouncer in transaction mode
// pools one role's connections, so each call of a kiosk proves its kiosk
// instead of its login role. The call's statement follows sf_call(kiosk,
// number, HMAC-SHA256 of "kiosk number" under the kiosk's call key) in one
// batch, which PostgreSQL runs as one implicit transaction and the pooler
// keeps on one server connection, in one round trip. The number is the
// kiosk's clock in microseconds, or one more than the last if that is
// later: the central takes each number once.

// CallKeySize is the size of a kiosk's call key.
const CallKeySize = 32

// kioskDB is what a kiosk's calls run on: its login role's pool, or the
// pooler's with each call proven (provenCalls).
type kioskDB interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// provenCalls runs a kiosk's calls through a pooler, each proving its
// kiosk.
type provenCalls struct {
	pool  *pgxpool.Pool
	kiosk string
	key   []byte

	mu   sync.Mutex
	last int64 // the last call number given
}

// OpenPooled connects kiosk to the central through a pooler at url (the
// pooled role's connection string, `central pooler`), each call proven
// with the kiosk's call key (`central kiosk add` printed it). Statements
// are not prepared on the server (pgx's cache_describe mode), as a pooler
// in transaction mode hands each transaction any server connection
// (exec mode measured no faster: docs/fleet.md, query mode).
func OpenPooled(ctx context.Context, url, kiosk string, key []byte) (*Client, error) {
	return openPooledMode(ctx, url, kiosk, key, pgx.QueryExecModeCacheDescribe)
}

// openPooledMode is OpenPooled with its statements run in mode
// (BenchmarkPooledCall measures another against OpenPooled's).
func openPooledMode(ctx context.Context, url, kiosk string, key []byte, mode pgx.QueryExecMode) (*Client, error) {
	if len(key) != CallKeySize {
		return nil, fmt.Errorf("central: a call key has %d bytes, not %d", CallKeySize, len(key))
	}
	if !kioskID.MatchString(kiosk) {
		return nil, fmt.Errorf("%w: %q", ErrBadKioskID, kiosk)
	}
	pool, err := kioskPool(ctx, url, mode)
	if err != nil {
		return nil, err
	}
	return &Client{pool: pool, db: &provenCalls{pool: pool, kiosk: kiosk, key: key}}, nil
}

// provenCallSQL proves the call's kiosk (migrations/0011).
const provenCallSQL = "SELECT sf_call($1, $2, $3)"

// next numbers a call and computes its MAC.
func (p *provenCalls) next() (int64, []byte) {
	p.mu.Lock()
	n := max(p.last+1, time.Now().UnixMicro())
	p.last = n
	p.mu.Unlock()
	m := hmac.New(sha256.New, p.key)
	fmt.Fprintf(m, "%s %d", p.kiosk, n)
	return n, m.Sum(nil)
}

// send sends sql after the proof and reads the proof's answer. A number
// the central took already (a clock set back, calls far out of order) is
// followed once by another past the central's last.
func (p *provenCalls) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	for try := 0; ; try++ {
		n, mac := p.next()
		b := &pgx.Batch{}
		b.Queue(provenCallSQL, p.kiosk, n, mac)
		b.Queue(sql, args...)
		br := p.pool.SendBatch(ctx, b)
		_, err := br.Exec()
		if err == nil {
			return br, nil
		}
		br.Close()
		var pe *pgconn.PgError
		if try > 0 || !errors.As(err, &pe) || pe.Code != "SF013" {
			return nil, err
		}
		if last, perr := strconv.ParseInt(strings.TrimPrefix(pe.Detail, "last "), 10, 64); perr == nil {
			p.mu.Lock()
			p.last = max(p.last, last)
			p.mu.Unlock()
		}
	}
}

// QueryRow is kioskDB's.
func (p *provenCalls) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	br, err := p.send(ctx, sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{br.QueryRow(), br}
}

// Query is kioskDB's.
func (p *provenCalls) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br, err := p.send(ctx, sql, args)
	if err != nil {
		return errRows{err}, err
	}
	rows, err := br.Query()
	return batchRows{rows, br}, err
}

// batchRow is the call's row; its batch ends with its Scan.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// batchRows are the call's rows; their batch ends as they close.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

// errRow and errRows are a call that failed before its statement ran.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type errRows struct{ err error }

func (r errRows) Close()                                       {}
func (r errRows) Err() error                                   { return r.err }
func (r errRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (r errRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (r errRows) Next() bool                                   { return false }
func (r errRows) Scan(...any) error                            { return r.err }
func (r errRows) Values() ([]any, error)                       { return nil, r.err }
func (r errRows) RawValues() [][]byte                          { return nil }
func (r errRows) Conn() *pgx.Conn                              { return nil }
func (r errRows) TypeMap() *pgtype.Map                         { return nil }
