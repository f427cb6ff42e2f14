package journal

import (
	"crypto/sha256"
	"fmt"

	"starfortune/engine"
)

// LineCodec formats lines as a journal opened under its keys appends
// them, and parses them as Entries does, reusing its buffers the same way.
type LineCodec struct {
	c             *codec
	line, scratch []byte
}

func NewLineCodec(keys Keys) (*LineCodec, error) {
	c, err := keys.codec()
	if err != nil {
		return nil, err
	}
	return &LineCodec{c: c}, nil
}

// Line is e's line, newline included, valid until the next call.
func (lc *LineCodec) Line(e engine.JournalEntry) ([]byte, error) {
	raw, err := e.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode journal entry %d: %w", e.Seq, err)
	}
	lc.line = lc.c.appendLine(lc.line[:0], e.Seq, raw, sha256.Sum256(raw), &lc.scratch)
	return lc.line, nil
}

// Parse decodes and checks a line; errors wrap engine.ErrCorrupt.
func (lc *LineCodec) Parse(line []byte) (engine.JournalEntry, error) {
	e, _, _, perr := lc.c.parse(line, &lc.scratch)
	if perr != nil {
		return e, perr
	}
	return e, nil
}

const ResealSuffix = resealing
