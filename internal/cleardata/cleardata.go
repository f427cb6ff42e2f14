// Package cleardata is, for tests, what a data directory holds in clear:
// Decrypt makes one as every one was before encryption at rest (its store
// in a Badger store without a key, its journal in clear lines, no keyring:
// the tests of `key init`, which encrypts such a directory, start from
// it), and Unsold reads what must never show in clear (the tests of
// secrecy look for it in what a kiosk writes).
package cleardata

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/journal"
	"starfortune/storage"
)

// storageHeader is what storage's backup stream puts before Badger's.
const storageHeader = len("STARFORTUNE-BACKUP\n") + 4

// Decrypt turns the store in storeDir (under badgerKey) and the journal at
// journalPath (under jkeys) into their clear forms, in place. The caller
// removes the keyring.
func Decrypt(tb testing.TB, storeDir string, badgerKey []byte, journalPath string, jkeys journal.Keys) {
	tb.Helper()
	s, err := storage.Open(storeDir, badgerKey, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	var stream bytes.Buffer
	err = s.Backup(&stream)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.RemoveAll(storeDir); err != nil {
		tb.Fatal(err)
	}
	db, err := badger.Open(badger.DefaultOptions(storeDir).WithLogger(nil).WithSyncWrites(true))
	if err != nil {
		tb.Fatal(err)
	}
	if err := db.Load(io.NopCloser(bytes.NewReader(stream.Bytes()[storageHeader:])), 16); err != nil {
		tb.Fatal(err)
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := journal.Reseal(journalPath, jkeys, journal.Plain); err != nil {
		tb.Fatal(err)
	}
}

// Unsold reads, from the store in storeDir under badgerKey, what must stay
// secret: the seed of every block not sold out, and runs of run units'
// encodings every stride positions among the next 4096 from its cursor.
func Unsold(tb testing.TB, storeDir string, badgerKey []byte, run, stride int) (seeds, runs [][]byte) {
	tb.Helper()
	s, err := storage.Open(storeDir, badgerKey, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	err = s.View(context.Background(), func(tx engine.ReadTx) error {
		infos, err := tx.Blocks()
		if err != nil {
			return err
		}
		for _, info := range infos {
			if info.Exhausted() {
				continue // its seed is public
			}
			b, err := s.LoadBlock(context.Background(), info.Ref)
			if err != nil {
				return err
			}
			seeds = append(seeds, bytes.Clone(b.Seed[:]))
			for i := int(info.Cursor.Served); i+run <= int(info.Size) && i < int(info.Cursor.Served)+4096; i += stride {
				runs = append(runs, b.Units[i*engine.UnitSize:(i+run)*engine.UnitSize])
			}
		}
		return nil
	})
	if err != nil || len(seeds) < len(engine.Stakes) {
		tb.Fatalf("the open blocks: %d seeds, %v", len(seeds), err)
	}
	return seeds, runs
}
