// Package cleardata makes, for tests, a data directory as every one was
// before encryption at rest: its store in a Badger store without a key,
// its journal in clear lines, no keyring. The tests of `key init`, which
// encrypts such a directory, start from it.
package cleardata

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

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
