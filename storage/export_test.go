package storage

import (
	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"starfortune/engine"
)

// Hooks for the black-box tests, which damage the store behind its back.

// RawDB is the store's Badger database.
func RawDB(s *Store) *badger.DB { return s.db }

// ChunkKey is the key of chunk c of block ref.
func ChunkKey(ref engine.BlockRef, c uint32) []byte { return chunkKeyOf(ref, c) }

// MetaKey is the key of block ref's completion record.
func MetaKey(ref engine.BlockRef) []byte { return metaKey(ref) }

// RecordKey is the key of ticket t's history record.
func RecordKey(t engine.Ticket) []byte { return recordKey(t) }

// SchemaKey is the key of the schema version.
func SchemaKey() []byte { return schemaKey() }

// ChunkUnits is the number of units per chunk.
const ChunkUnits = chunkUnits

// JournalKey is the key of the last journal entry's mark.
func JournalKey() []byte { return journalKey() }

// RevealGroupKey is the key of the grouped reveals holding ticket t's.
func RevealGroupKey(t engine.Ticket) []byte { return revealGroupKey(t) }

// TestKey is the store key of the tests: fixed, so that a test may reopen
// what another helper wrote.
var TestKey = []byte("starfortune-storage-test-key-32b")

// OtherKey is a second key, for wrong-key and rotation tests.
var OtherKey = []byte("starfortune-storage-other-key-32")

// OpenPlaintext opens, or creates, a plaintext store as every store was
// before #34: the migration tests make the stores they migrate with it.
func OpenPlaintext(dir string, log zerolog.Logger) (*Store, error) {
	return openStore(dir, nil, true, log)
}

// MaxVersion is the store's Badger version: that of its last commit.
func MaxVersion(s *Store) uint64 { return s.db.MaxVersion() }

// Suffixes of the migration's names beside the store directory.
const (
	SuffixPartial = suffixPartial
	SuffixCopy    = suffixCopy
	SuffixAside   = suffixAside
	CopiedFrom    = copiedFrom
)
