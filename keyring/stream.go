package keyring

import (
	"bufio"
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/chacha20poly1305"
)

// The sealed stream's layout; doc.go describes it for a reader.
const (
	streamMagic = "STARFORTUNE-SEALED 1\n"
	prefixSize  = 15 // random; with the 8-byte counter and the flag, a 24-byte nonce
	checkSize   = 16
	// streamHeaderSize: magic, generation, nonce prefix, key check.
	streamHeaderSize = len(streamMagic) + 4 + prefixSize + checkSize

	// ChunkSize is the plaintext of every chunk but the last, which holds
	// 0 to ChunkSize bytes (0 only for an empty stream).
	ChunkSize = 64 << 10
	frameSize = ChunkSize + tagSize

	infoKeyCheck = "starfortune/sealed/v1/key-check"
)

var errWriterClosed = errors.New("keyring: sealed stream: write after Close")

// NewSealWriter seals what is written to it onto w, under key (a
// generation's Key.Backup) whose generation gen it writes in the header so
// a reader picks the right key. Close writes the last chunk, which marks
// the end: a stream not closed is truncated to its readers. Close does not
// close w. Errors are sticky: after one, every call returns it.
func NewSealWriter(w io.Writer, key [32]byte, gen uint32) io.WriteCloser {
	sw := &sealWriter{w: w, buf: make([]byte, 0, ChunkSize), out: make([]byte, 0, frameSize)}
	sw.aead, _ = chacha20poly1305.NewX(key[:]) // errs only on a key's length
	h := make([]byte, 0, streamHeaderSize)
	h = append(h, streamMagic...)
	h = binary.BigEndian.AppendUint32(h, gen)
	var prefix [prefixSize]byte
	random(prefix[:])
	h = append(h, prefix[:]...)
	h = append(h, keyCheck(&key, h)...)
	sw.header = h
	copy(sw.nonce[:], prefix[:])
	return sw
}

// keyCheck lets a reader tell a wrong key from damage before any chunk:
// HKDF-SHA256 of the key, salted with the header before the check.
func keyCheck(key *[32]byte, header []byte) []byte {
	c, err := hkdf.Key(sha256.New, key[:], header, infoKeyCheck, checkSize)
	if err != nil {
		panic("keyring: hkdf: " + err.Error())
	}
	return c
}

type sealWriter struct {
	w       io.Writer
	aead    cipher.AEAD
	header  []byte // written before the first chunk; every chunk's AD
	nonce   [nonceSize]byte
	counter uint64
	buf     []byte // plaintext not yet sealed
	out     []byte
	started bool
	closed  bool
	err     error
}

func (sw *sealWriter) Write(p []byte) (int, error) {
	if sw.err != nil {
		return 0, sw.err
	}
	if sw.closed {
		return 0, errWriterClosed
	}
	n := 0
	for len(p) > 0 {
		// A full chunk is sealed only once more data comes: until then
		// it may be the last one, which is sealed differently.
		if len(sw.buf) == ChunkSize {
			if err := sw.seal(false); err != nil {
				return n, err
			}
		}
		m := copy(sw.buf[len(sw.buf):ChunkSize], p)
		sw.buf = sw.buf[:len(sw.buf)+m]
		p = p[m:]
		n += m
	}
	return n, nil
}

// Close seals the last chunk.
func (sw *sealWriter) Close() error {
	if sw.err != nil {
		return sw.err
	}
	if sw.closed {
		return nil
	}
	sw.closed = true
	return sw.seal(true)
}

func (sw *sealWriter) seal(last bool) error {
	if !sw.started {
		sw.started = true
		if _, err := sw.w.Write(sw.header); err != nil {
			sw.err = fmt.Errorf("keyring: sealed stream: %w", err)
			return sw.err
		}
	}
	chunkNonce(&sw.nonce, sw.counter, last)
	sw.out = sw.aead.Seal(sw.out[:0], sw.nonce[:], sw.buf, sw.header)
	sw.counter++
	sw.buf = sw.buf[:0]
	if _, err := sw.w.Write(sw.out); err != nil {
		sw.err = fmt.Errorf("keyring: sealed stream: %w", err)
		return sw.err
	}
	return nil
}

// chunkNonce sets the nonce's last 9 bytes: the chunk's number (uint64,
// big-endian) and 1 for the last chunk, 0 for the others.
func chunkNonce(n *[nonceSize]byte, counter uint64, last bool) {
	binary.BigEndian.PutUint64(n[prefixSize:], counter)
	n[nonceSize-1] = 0
	if last {
		n[nonceSize-1] = 1
	}
}

// NewSealReader reads a stream NewSealWriter wrote, with the key of the
// generation its header names. It reads the header now: a generation keys
// lack, or a key that is not the writer's, is an error wrapping ErrWrongKey;
// a header that is not a sealed stream's wraps ErrDamaged.
//
// The reader returns a chunk's bytes only once the chunk authenticated,
// and io.EOF only after the last chunk did. A truncated, reordered,
// altered or extended stream is an error wrapping ErrDamaged, at the chunk
// where it is found: the chunks before it have been returned by then, so
// a caller restoring a backup must discard everything on any error.
func NewSealReader(r io.Reader, keys Keys) (io.Reader, error) {
	h := make([]byte, streamHeaderSize)
	n, err := io.ReadFull(r, h)
	if !bytes.HasPrefix(h[:n], []byte(streamMagic)[:min(n, len(streamMagic))]) {
		return nil, fmt.Errorf("%w: not a sealed stream (no %q line)", ErrDamaged, streamMagic[:len(streamMagic)-1])
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%w: sealed stream: header truncated (%d bytes)", ErrDamaged, n)
	}
	if err != nil {
		return nil, fmt.Errorf("keyring: sealed stream: %w", err)
	}
	gen := binary.BigEndian.Uint32(h[len(streamMagic):])
	k, ok := keys.Gen(gen)
	if !ok {
		return nil, fmt.Errorf("%w: the stream is sealed with key generation %d, the keys hold %v", ErrWrongKey, gen, keys.Generations())
	}
	key := k.Backup()
	body := streamHeaderSize - checkSize
	if subtle.ConstantTimeCompare(h[body:], keyCheck(&key, h[:body])) != 1 {
		return nil, fmt.Errorf("%w: the stream was sealed under another key of generation %d (or its header is damaged)", ErrWrongKey, gen)
	}
	sr := &sealReader{
		r:      bufio.NewReader(r),
		header: h,
		frame:  make([]byte, frameSize),
		buf:    make([]byte, 0, ChunkSize),
	}
	sr.aead, _ = chacha20poly1305.NewX(key[:])
	copy(sr.nonce[:], h[len(streamMagic)+4:])
	return sr, nil
}

type sealReader struct {
	r       *bufio.Reader
	aead    cipher.AEAD
	header  []byte
	nonce   [nonceSize]byte
	counter uint64
	frame   []byte
	buf     []byte // the open chunk's plaintext
	plain   []byte // what of buf is not yet returned
	done    bool   // the last chunk authenticated
	err     error
}

func (sr *sealReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(sr.plain) == 0 {
		if sr.err != nil {
			return 0, sr.err
		}
		if sr.done {
			return 0, io.EOF
		}
		sr.err = sr.next()
	}
	n := copy(p, sr.plain)
	sr.plain = sr.plain[n:]
	return n, nil
}

// next reads and opens the next chunk. A chunk is the last one if the
// stream ends with it; it must then have been sealed as the last, which
// is what detects a stream cut at a chunk's end.
func (sr *sealReader) next() error {
	i := sr.counter
	n, err := io.ReadFull(sr.r, sr.frame)
	last := false
	switch {
	case err == io.EOF:
		return fmt.Errorf("%w: sealed stream truncated: it ends before chunk %d, with no last chunk", ErrDamaged, i)
	case err == io.ErrUnexpectedEOF:
		last = true
	case err != nil:
		return fmt.Errorf("keyring: sealed stream: %w", err)
	default:
		_, err := sr.r.Peek(1)
		if err != nil && err != io.EOF {
			return fmt.Errorf("keyring: sealed stream: %w", err)
		}
		last = err == io.EOF
	}
	if n < tagSize {
		return fmt.Errorf("%w: sealed stream truncated inside chunk %d", ErrDamaged, i)
	}
	frame := sr.frame[:n]
	plain, ok := sr.open(frame, i, last)
	if !ok {
		// Opened the other way, the chunk says what happened.
		if _, other := sr.open(frame, i, !last); other && last {
			return fmt.Errorf("%w: sealed stream truncated after chunk %d: its last chunk is missing", ErrDamaged, i)
		} else if other {
			return fmt.Errorf("%w: sealed stream has data after its last chunk (%d)", ErrDamaged, i)
		}
		return fmt.Errorf("%w: sealed stream chunk %d does not authenticate (altered, reordered, cut or from another stream)", ErrDamaged, i)
	}
	sr.counter++
	sr.plain = plain
	sr.done = last
	return nil
}

func (sr *sealReader) open(frame []byte, i uint64, last bool) ([]byte, bool) {
	chunkNonce(&sr.nonce, i, last)
	plain, err := sr.aead.Open(sr.buf[:0], sr.nonce[:], frame, sr.header)
	return plain, err == nil
}
