// Package central is the fleet's PostgreSQL adapter: the schema and its
// migrations, emissions drawn centrally, blocks with published Merkle roots,
// packs, kiosk roles, sales sync, closure and the fleet audit. Admin is the
// operator's side (the owner role); Client is a kiosk's side, implementing
// engine.Central through the SECURITY DEFINER functions that are a kiosk
// role's only rights. SQL lives in embedded files beside it: migrations/
// (applied in order by Init; history, never edited once released) and sql/
// (one statement each, read by one query call); the one-line calls of the
// schema's functions (claim_pack, heartbeat…) are named constants beside
// their use. No statement is written twice (sql_test.go checks all this).
package central

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"starfortune/engine"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

//go:embed sql/*.sql
var queryFS embed.FS

// query returns the embedded query sql/name.sql.
func query(name string) string {
	b, err := queryFS.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("central: no query %s: %v", name, err))
	}
	return string(b)
}

// Errors of the central's administration, matched with errors.Is.
var (
	// ErrNotInitialised: the database has no schema, or an older one: run
	// `central init`.
	ErrNotInitialised = errors.New("central: database not initialised or schema out of date: run `starfortune central init`")
	// ErrBadKioskID: a kiosk id other than 1 to 32 of a-z 0-9 _ -.
	ErrBadKioskID = errors.New("central: kiosk id must be 1 to 32 characters among a-z, 0-9, _ and -, starting with a letter or digit")
	// ErrKioskExists: the kiosk id is already taken.
	ErrKioskExists = errors.New("central: kiosk already exists")
	// ErrEmissions: the two-digit emission numbers are all used.
	ErrEmissions = errors.New("central: emission numbers 1-99 are all used")
)

// migration is one file of migrations/: NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		v, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: no version number", e.Name())
		}
		b, err := migrationFS.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{v, e.Name(), string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies the migrations the database lacks, each in its own
// transaction with its version row, under an advisory lock so that two
// concurrent `central init` wait for each other. It returns the names of
// those applied.
func migrate(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	return migrateTo(ctx, conn, latestVersion())
}

// migrateTo applies the migrations up to version upTo: a test's central as
// an older release left it.
func migrateTo(ctx context.Context, conn *pgx.Conn, upTo int) ([]string, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := lockMigrations(ctx, tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, query("schema_migrations"))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("central: schema_migrations: %w", err)
	}
	var applied []string
	for _, m := range ms {
		if m.version > upTo {
			break
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if err := lockMigrations(ctx, tx); err != nil {
				return err
			}
			var done bool
			if err := tx.QueryRow(ctx, query("migration_applied"), m.version).Scan(&done); err != nil || done {
				return err
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, query("migration_insert"), m.version, m.name)
			if err == nil {
				applied = append(applied, m.name)
			}
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("central: migration %s: %w", m.name, err)
		}
	}
	return applied, nil
}

// lockMigrations takes the migrations' advisory lock until tx ends.
func lockMigrations(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, query("migration_lock"))
	return err
}

// latestVersion is the version of the last embedded migration.
func latestVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		panic(fmt.Sprintf("central: embedded migrations: %v", err))
	}
	return ms[len(ms)-1].version
}

// forEachRowByName calls fn with each row of rows scanned by column name
// into a T (pgx.RowToStructByName), one at a time: pgx.CollectRows for a
// result too large to hold whole. It closes rows; a failed query's error
// comes from rows.Err, as with pgx.ForEachRow.
func forEachRowByName[T any](rows pgx.Rows, fn func(T) error) error {
	defer rows.Close()
	for rows.Next() {
		v, err := pgx.RowToStructByName[T](rows)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// blockRefCols are a block reference's columns (blocks.emission,
// stake_cents, number), embedded in the structs rows are scanned into.
type blockRefCols struct {
	Emission   int `db:"emission" json:"emission"`
	StakeCents int `db:"stake_cents" json:"stake_cents"`
	Number     int `db:"number" json:"number"`
}

func (c blockRefCols) blockRef() engine.BlockRef {
	return engine.BlockRef{Emission: uint16(c.Emission), Stake: engine.Cents(c.StakeCents), Number: uint32(c.Number)}
}

// translate maps the kiosk functions' SQLSTATEs (migrations/0002, 0005, 0007) and
// connection failures to the engine's fleet errors.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "SF001":
			return fmt.Errorf("%w: %s", engine.ErrNoPack, pg.Message)
		case "SF002":
			return fmt.Errorf("%w: %s", engine.ErrSyncGap, pg.Message)
		case "SF003", "SF005":
			return fmt.Errorf("%w: %s", engine.ErrPackState, pg.Message)
		case "SF006":
			return fmt.Errorf("%w: %s", engine.ErrLookupLimit, pg.Message)
		case "SF007", "SF008", "SF010": // migrations/0005
			return fmt.Errorf("%w: %s", engine.ErrClaimRefused, pg.Message)
		case "SF009":
			return fmt.Errorf("%w: %s", engine.ErrPushRefused, pg.Message)
		case "SF011": // migrations/0007
			return fmt.Errorf("%w: %s", engine.ErrBadLimit, pg.Message)
		case "SF012":
			return fmt.Errorf("%w: %s", engine.ErrBadBreak, pg.Message)
		case "SF004", "42501": // 42501: insufficient privilege
			return fmt.Errorf("%w: %s", engine.ErrUnknownKiosk, pg.Message)
		}
		return fmt.Errorf("%w: %w", engine.ErrCentralUnavailable, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %w", engine.ErrCentralUnavailable, err)
}
