package central

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"starfortune/engine"
)

// Archiving closed blocks (migrations/0013, docs/fleet.md): a block's
// sales are one partition of sales, so a closed block leaves the central
// in three steps. Export: the block, its units, packs and sales, in one
// snapshot, to <ref>.jsonl in the archive directory. Verify: the audit's
// own checks of a block, run on the file (units and seed to the published
// root, packs tiling the block, every sale the block's, the tally of a
// closed block the prize table); a block that does not verify is not
// archived. Detach: the file's SHA-256 recorded in archived_blocks, then
// the partition detached (CONCURRENTLY: the kiosks' pushes do not wait)
// and dropped. `central audit --archive DIR` checks each archived block
// from its file, which must be the one recorded.

// archiveFormat is the version of an archive's layout: a first line
// {"format": 1, "block": …, "units": …}, then a line {"pack": …} per pack
// in position order, then a line {"sale": …} per sale in position order,
// each a JSON object (bytes in base64, times in RFC 3339).
const archiveFormat = 1

type archiveLine struct {
	Format int            `json:"format,omitempty"`
	Block  *auditBlockRow `json:"block,omitempty"`
	Units  []byte         `json:"units,omitempty"`
	Pack   *auditPack     `json:"pack,omitempty"`
	Sale   *auditSale     `json:"sale,omitempty"`
}

// ArchivedBlock is a block `central archive` archived.
type ArchivedBlock struct {
	Ref    string `json:"block"`
	File   string `json:"file"` // in the archive directory
	SHA256 string `json:"sha256"`
	Sales  int64  `json:"sales"`
}

var (
	// ErrNotArchivable: a block asked for is not closed, or closed less
	// than fleet_settings.archive_after ago.
	ErrNotArchivable = errors.New("central: block not archivable")
	// ErrBlockArchived: the block's sales left the central for its
	// archive (central archive): the archive file holds them.
	ErrBlockArchived = errors.New("central: the block is archived")
	// ErrArchiveInvalid: a block's exported rows did not verify; nothing
	// of it was archived.
	ErrArchiveInvalid = errors.New("central: the block's archive does not verify")
)

// archiveState is a block as sql/archive_state.sql reads it.
type archiveState struct {
	ID int64 `db:"id"`
	blockRefCols
	Closed   bool   `db:"closed"`
	Due      bool   `db:"due"`
	Archived bool   `db:"archived"`
	Attached bool   `db:"attached"` // its partition of sales still exists
	Until    string `db:"until"`    // when it may be archived
}

// Archive archives into directory dir the blocks of refs or, with none,
// every block closed at least fleet_settings.archive_after ago, and
// finishes the archiving of any block an interrupted run left recorded
// but not detached. It returns the blocks archived by this call.
func (a *Admin) Archive(ctx context.Context, dir string, refs []engine.BlockRef) ([]ArchivedBlock, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("central: archive directory %s: not a directory (%v)", dir, err)
	}
	rows, _ := a.pool.Query(ctx, query("archive_state"))
	states, err := pgx.CollectRows(rows, pgx.RowToStructByName[archiveState])
	if err != nil {
		return nil, fmt.Errorf("central: archive: %w", err)
	}
	var todo []archiveState
	if len(refs) == 0 {
		for _, s := range states {
			if s.Due && !s.Archived || s.Archived && s.Attached {
				todo = append(todo, s)
			}
		}
	}
	for _, ref := range refs {
		i := -1
		for j, s := range states {
			if s.blockRef() == ref {
				i = j
			}
		}
		switch {
		case i < 0:
			return nil, fmt.Errorf("%w: %s", ErrNoBlock, ref)
		case !states[i].Closed:
			return nil, fmt.Errorf("%w: block %s is in play", ErrNotArchivable, ref)
		case !states[i].Due:
			return nil, fmt.Errorf("%w: block %s closed less than archive_after ago: it may be archived from %s", ErrNotArchivable, ref, states[i].Until)
		}
		todo = append(todo, states[i])
	}
	var done []ArchivedBlock
	for _, s := range todo {
		if !s.Archived {
			ab, err := a.exportBlock(ctx, dir, s.ID)
			if err != nil {
				return done, err
			}
			done = append(done, ab)
		}
		if err := a.detachSales(ctx, s.ID); err != nil {
			return done, err
		}
	}
	return done, nil
}

// exportBlock writes block id's archive into dir, verifies it, renames it
// into place and records it.
func (a *Admin) exportBlock(ctx context.Context, dir string, id int64) (ArchivedBlock, error) {
	var r auditBlockRow
	var units []byte
	var ab ArchivedBlock
	tmp, err := os.CreateTemp(dir, ".archive-*.tmp")
	if err != nil {
		return ab, fmt.Errorf("central: archive: %w", err)
	}
	defer os.Remove(tmp.Name()) // once renamed, removes nothing
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, h), 1<<20)
	enc := json.NewEncoder(w)
	err = pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		blocks, err := auditBlockRows(ctx, tx, &id)
		if err != nil {
			return err
		}
		if len(blocks) != 1 {
			return fmt.Errorf("%w: block id %d", ErrNoBlock, id)
		}
		r = blocks[0]
		if units, err = blockUnits(ctx, tx, id); err != nil {
			return err
		}
		if err := enc.Encode(archiveLine{Format: archiveFormat, Block: &r, Units: units}); err != nil {
			return err
		}
		return blockRows(ctx, tx, id, func(p auditPack) error { return enc.Encode(archiveLine{Pack: &p}) }, func(s auditSale) error {
			ab.Sales++
			return enc.Encode(archiveLine{Sale: &s})
		})
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err != nil {
		return ab, fmt.Errorf("central: archive: %w", err)
	}
	ab.Ref, ab.SHA256 = r.blockRef().String(), hex.EncodeToString(h.Sum(nil))
	ab.File = ab.Ref + ".jsonl"

	// Verify the file as the audit will.
	r.ArchiveFile, r.ArchiveSHA256 = filepath.Base(tmp.Name()), h.Sum(nil)
	b := newAuditBlock(r, units)
	var findings []string
	find := func(format string, args ...any) { findings = append(findings, fmt.Sprintf(format, args...)) }
	if read, err := auditArchived(dir, b, func(s auditSale) error { b.sale(s, find); return nil }, find); err != nil {
		return ab, err
	} else if read {
		auditBlockCounts(b, find)
	}
	if len(findings) > 0 {
		return ab, fmt.Errorf("%w: block %s: %s", ErrArchiveInvalid, ab.Ref, strings.Join(findings, "; "))
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, ab.File)); err != nil {
		return ab, fmt.Errorf("central: archive: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return ab, err
	}
	if _, err := a.pool.Exec(ctx, query("archive_record"), id, ab.File, r.ArchiveSHA256, ab.Sales); err != nil {
		return ab, fmt.Errorf("central: archive: record block %s: %w", ab.Ref, err)
	}
	return ab, nil
}

// The statements of detachSales, of a partition's quoted name.
const (
	detachSalesSQL = "ALTER TABLE sales DETACH PARTITION %s %s"
	dropSalesSQL   = "DROP TABLE IF EXISTS %s"
)

// detachSales detaches block id's partition of sales, without making the
// kiosks' pushes wait (CONCURRENTLY; FINALIZE after an interrupted one),
// and drops it.
func (a *Admin) detachSales(ctx context.Context, id int64) error {
	table := fmt.Sprintf("sales_b%d", id)
	quoted := pgx.Identifier{table}.Sanitize()
	var pending *bool
	err := a.pool.QueryRow(ctx, query("sales_partition_state"), table).Scan(&pending)
	if err == nil && pending != nil {
		how := "CONCURRENTLY"
		if *pending {
			how = "FINALIZE"
		}
		_, err = a.pool.Exec(ctx, fmt.Sprintf(detachSalesSQL, quoted, how))
	}
	if err == nil {
		_, err = a.pool.Exec(ctx, fmt.Sprintf(dropSalesSQL, quoted))
	}
	if err != nil {
		return fmt.Errorf("central: archive: detach %s: %w", table, err)
	}
	return nil
}

// auditArchived reads block b's archive from directory dir: its packs
// into b, its sales one at a time into sale; read is false when there is
// no file to read. A file missing, of another block or not the one
// archived is a finding.
func auditArchived(dir string, b *auditBlock, sale func(auditSale) error, find func(string, ...any)) (read bool, err error) {
	f, err := os.Open(filepath.Join(dir, b.ArchiveFile))
	if errors.Is(err, fs.ErrNotExist) {
		find("block %s: its archive %s is not in %s", b.ref, b.ArchiveFile, dir)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("central: audit: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	hashed := io.TeeReader(f, h)
	dec := json.NewDecoder(bufio.NewReaderSize(hashed, 1<<20))
	for n := 0; ; n++ {
		var l archiveLine
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			find("block %s: archive %s: line %d: %v", b.ref, b.ArchiveFile, n+1, err)
			break
		}
		switch {
		case n == 0:
			if l.Format != archiveFormat || l.Block == nil || l.Block.ID != b.ID || l.Block.blockRef() != b.ref ||
				!bytes.Equal(l.Block.Root, b.Root) || !bytes.Equal(l.Units, b.units) || !bytes.Equal(l.Block.Revealed, b.Revealed) {
				find("block %s: archive %s is not of the block the central published", b.ref, b.ArchiveFile)
			}
		case l.Pack != nil:
			l.Pack.BlockID = b.ID
			b.pack(*l.Pack)
		case l.Sale != nil:
			l.Sale.BlockID = b.ID
			if err := sale(*l.Sale); err != nil {
				return true, err
			}
		}
	}
	if _, err := io.Copy(io.Discard, hashed); err != nil { // the rest of a file that stopped parsing
		return true, fmt.Errorf("central: audit: %w", err)
	}
	if sum := h.Sum(nil); !bytes.Equal(sum, b.ArchiveSHA256) {
		find("block %s: archive %s is not the file archived (SHA-256 %x, archived %x)", b.ref, b.ArchiveFile, sum, b.ArchiveSHA256)
	}
	return true, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
