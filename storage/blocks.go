package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"starfortune/engine"
)

// PutBlock stores a drawn block: its chunks first (Badger splits them into
// as many synced transactions as its size limit needs: two for a full
// block), then, once they are all durable, the completion record in a final
// synced transaction. A crash in between leaves chunks without a completion
// record: the block does not exist, and drawing it again overwrites them.
// A complete block is never overwritten.
func (s *Store) PutBlock(ctx context.Context, b *engine.Block) error {
	ref := b.Ref
	if err := s.disk.check(); err != nil { // Badger's mmapped files would fault on a full disk
		return err
	}
	if len(b.Units)%engine.UnitSize != 0 || b.Len() == 0 {
		return fmt.Errorf("store block %s: %d bytes is not a whole, non-zero number of units", ref, len(b.Units))
	}
	size := uint32(b.Len())
	meta := blockMeta{Size: size, Chunks: chunksFor(size), Commitment: b.Commitment, Seed: b.Seed}
	var stale [][]byte // chunks of an earlier, incomplete draw beyond this one's
	err := s.View(ctx, func(rt engine.ReadTx) error {
		t := rt.(*tx)
		if _, err := t.txn.Get(metaKey(ref)); err == nil {
			return fmt.Errorf("store block %s: already stored (a complete block is never redrawn)", ref)
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return storageErr("read", err)
		}
		return t.scan(chunkPrefix(ref), chunkKeyOf(ref, meta.Chunks), false, func(key []byte, _ *badger.Item) error {
			stale = append(stale, append([]byte(nil), key...))
			return nil
		})
	})
	if err != nil {
		return err
	}
	s.chunks.forget(ref)

	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for c := uint32(0); c < meta.Chunks; c++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		from := c * chunkUnits * engine.UnitSize
		key := chunkKeyOf(ref, c)
		units := b.Units[from : from+chunkLen(size, c)*engine.UnitSize]
		if err := wb.Set(key, sealChunk(key, units)); err != nil {
			return storageErr(fmt.Sprintf("store block %s chunk %d", ref, c), err)
		}
	}
	for _, key := range stale {
		if err := wb.Delete(key); err != nil {
			return storageErr(fmt.Sprintf("store block %s", ref), err)
		}
	}
	if err := wb.Flush(); err != nil {
		return storageErr(fmt.Sprintf("store block %s", ref), err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err = s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(metaKey(ref), meta.encode())
	})
	if err != nil {
		return storageErr(fmt.Sprintf("store block %s completion", ref), err)
	}
	return nil
}

// LoadBlock reads the whole block, checking every chunk's checksum and that
// the chunks are all there, in order, each of the size the meta implies.
// An unknown (or incomplete) block is an error wrapping ErrUnknownTicket.
func (s *Store) LoadBlock(ctx context.Context, ref engine.BlockRef) (*engine.Block, error) {
	var b *engine.Block
	err := s.View(ctx, func(rt engine.ReadTx) (err error) {
		b, err = rt.(*tx).block(ref)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load block %s: %w", ref, err)
	}
	return b, nil
}

// block reads the whole block in the transaction (see LoadBlock).
func (t *tx) block(ref engine.BlockRef) (*engine.Block, error) {
	m, err := t.meta(ref)
	if err != nil {
		return nil, err
	}
	units := make([]byte, 0, int(m.Size)*engine.UnitSize)
	prefix := chunkPrefix(ref)
	var next uint32
	err = t.scan(prefix, nil, false, func(key []byte, item *badger.Item) error {
		if len(key) != len(prefix)+4 {
			return fmt.Errorf("%w: block %s: chunk key %x", engine.ErrCorrupt, ref, key)
		}
		c := binary.BigEndian.Uint32(key[len(prefix):])
		switch {
		case c >= m.Chunks:
			return fmt.Errorf("%w: block %s: chunk %d beyond its %d chunks", engine.ErrCorrupt, ref, c, m.Chunks)
		case c != next:
			return fmt.Errorf("%w: block %s: chunk %d missing", engine.ErrCorrupt, ref, next)
		}
		next++
		return item.Value(func(v []byte) error {
			u, err := openChunk(ref, c, key, v)
			if err == nil {
				err = checkChunkLen(ref, c, m.Size, u)
			}
			units = append(units, u...)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	if next != m.Chunks {
		return nil, fmt.Errorf("%w: block %s: %d chunks of %d (truncated)", engine.ErrCorrupt, ref, next, m.Chunks)
	}
	return &engine.Block{Ref: ref, Seed: m.Seed, Units: units, Commitment: m.Commitment}, nil
}

// meta reads block ref's completion record.
func (t *tx) meta(ref engine.BlockRef) (blockMeta, error) {
	item, err := t.txn.Get(metaKey(ref))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return blockMeta{}, fmt.Errorf("%w: block %s is not stored", engine.ErrUnknownTicket, ref)
	}
	if err != nil {
		return blockMeta{}, storageErr("read", err)
	}
	var m blockMeta
	err = item.Value(func(v []byte) (err error) {
		m, err = decodeMeta(ref, v)
		return err
	})
	return m, err
}

func checkChunkLen(ref engine.BlockRef, c, size uint32, units []byte) error {
	if want := int(chunkLen(size, c)) * engine.UnitSize; len(units) != want {
		return fmt.Errorf("%w: block %s chunk %d: %d bytes of units, want %d", engine.ErrCorrupt, ref, c, len(units), want)
	}
	return nil
}

// chunk returns the verified units of chunk c of block ref.
func (s *Store) chunk(txn *badger.Txn, ref engine.BlockRef, c uint32) ([]byte, error) {
	id := chunkID{ref, c}
	if units := s.chunks.get(id); units != nil {
		return units, nil
	}
	t := &tx{s: s, txn: txn}
	m, err := t.meta(ref)
	if err != nil {
		return nil, err
	}
	if c >= m.Chunks {
		return nil, fmt.Errorf("%w: beyond block %s", engine.ErrUnknownTicket, ref)
	}
	key := chunkKeyOf(ref, c)
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("%w: block %s chunk %d missing", engine.ErrCorrupt, ref, c)
	}
	if err != nil {
		return nil, storageErr("read", err)
	}
	var units []byte
	err = item.Value(func(v []byte) error {
		u, err := openChunk(ref, c, key, v)
		if err == nil {
			err = checkChunkLen(ref, c, m.Size, u)
		}
		units = append([]byte(nil), u...)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.chunks.put(id, units)
	return units, nil
}

type chunkID struct {
	ref   engine.BlockRef
	chunk uint32
}

// chunkCache keeps the last few verified chunks. A complete block never
// changes, so a cached chunk stays true; the cache only saves a read and a
// checksum per unit sold.
type chunkCache struct {
	mu    sync.Mutex
	ids   [8]chunkID
	units [8][]byte
	next  int
}

func (c *chunkCache) get(id chunkID) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ids {
		if c.units[i] != nil && c.ids[i] == id {
			return c.units[i]
		}
	}
	return nil
}

func (c *chunkCache) put(id chunkID, units []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids[c.next], c.units[c.next] = id, units
	c.next = (c.next + 1) % len(c.ids)
}

// forget drops the chunks of block ref (a block being drawn again).
func (c *chunkCache) forget(ref engine.BlockRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ids {
		if c.ids[i].ref == ref {
			c.units[i] = nil
		}
	}
}
