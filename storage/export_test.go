package storage

import (
	"github.com/dgraph-io/badger/v4"

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
