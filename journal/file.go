// Package journal keeps the engine's journal in a plain append-only file:
// one line per store transaction, hash-chained, synced before Append
// returns. The file is independent of Badger, so it can reveal writes the
// store lost and rebuild them.
//
// The entries hold secrets (each block's seed, from which every unsold
// outcome follows), so a journal is sealed: each line is encrypted and
// authenticated under a data key (Keys) that the caller keeps off the
// disk, and anyone with a copy of the file sees only each line's number and
// key generation (line.go gives the format). Journals from before sealing,
// in clear lines, open with Plain, for Reseal to seal them.
//
// While the journal is open, its file ends with reserved space: empty lines
// (newline bytes) written and synced ahead of the entries. An entry is
// written over them in place, so its sync is one data write (fdatasync)
// instead of an append, which also has the file system commit the file's new
// size: on a disk without FUA writes (the kiosks' virtual disks) that is two
// cache flushes instead of one. Close gives the reserve back; a process that
// stops without Close leaves it, and Open removes it.
package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"starfortune/engine"
	"starfortune/internal/fsync"
)

// chunk is how much of the file's end Open reads at a time looking for the
// last line: the file can be hundreds of megabytes, Open reads only its tail.
const chunk = 64 << 10

// maxLine bounds a line Entries accepts. The engine's largest transaction
// (Badger's limit, about 13 000 small values) encodes to a few megabytes.
const maxLine = 64 << 20

// reserveAhead is how much empty space Append writes ahead at a time: a
// couple of thousand single-unit sales, so that syncing the file's new size
// is rare.
const reserveAhead = 1 << 20

// newlines is what the reserved space holds.
var newlines = bytes.Repeat([]byte{'\n'}, chunk)

// File is the journal file. Its methods are safe for concurrent use.
type File struct {
	path  string
	codec *codec

	mu        sync.Mutex
	f         *os.File
	size      int64 // end of the last complete line
	end       int64 // end of the file: size plus the reserved space
	head      engine.JournalHead
	last      *engine.JournalEntry // the entry at head, when known
	lastStart int64                // where its line starts
	truncated int64
	line      []byte // reused by Append
	scratch   []byte // reused by Append for the sealed bytes
	broken    error  // set when a failed append could not be undone
}

var _ engine.Journal = (*File)(nil)

// Open opens the journal at path under keys, creating it (and its
// directory) if needed, and finds its head by reading only the end of the
// file. New lines are sealed under keys.Current (in clear with Plain).
//
// A crash during an append can leave a torn last line: bytes without their
// newline, or a last line that does not verify. Open cuts it off (Truncated
// says how many bytes) so appends go on after the last good entry, and the
// reserved space a crash left with it; the store
// keeps a copy of the last entry it committed, from which the caller can
// append it again. Only the end of the file is checked here; Entries checks
// the whole chain. A file held by another process gives an error wrapping
// engine.ErrInUse; a last line the keys do not open, ErrWrongKey (or
// engine.ErrCorrupt when it alone does not: see ErrWrongKey); a clear
// journal opened with keys, ErrNotSealed. A temporary file that a Reseal
// cut short left beside the journal is removed.
func Open(path string, keys Keys) (*File, error) {
	c, err := keys.codec()
	if err != nil {
		return nil, err
	}
	if err := fsync.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("%w: journal: %w", engine.ErrStorage, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	created := errors.Is(err, os.ErrNotExist)
	if created {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	}
	if err == nil && created {
		// Its name must be on the disk before its first entry is.
		err = fsync.Dir(filepath.Dir(path))
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, fmt.Errorf("%w: journal: %w", engine.ErrStorage, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: journal %s", engine.ErrInUse, path)
		}
		return nil, fmt.Errorf("%w: lock journal %s: %w", engine.ErrStorage, path, err)
	}
	// Left by a Reseal cut short, which left the journal as it was: no
	// Reseal is under way, it would hold the lock.
	os.Remove(path + resealing)
	j := &File{path: path, codec: c, f: f}
	if err := j.findHead(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// findHead reads the file's tail for the last complete line, cutting off a
// torn one and the reserved space after it.
//
// A torn write leaves one bad line, or, when some of its pages reached the
// disk and others did not, bad fragments separated by reserved space. Two
// bad lines that follow each other directly cannot come from one write: that
// is damage, and cutting more would destroy acknowledged entries. Nor is a
// whole line that the keys refuse (a sealed line that checks its CRC but
// does not open, a line of the other format) torn: Open refuses it.
func (j *File) findHead() error {
	st, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("%w: journal: %w", engine.ErrStorage, err)
	}
	size := st.Size()
	t := tail{f: j.f, buf: make([]byte, chunk)}
	var scratch []byte
	end, reserved, cut := size, int64(0), false
	for end > 0 {
		p, err := t.lastNot('\n', end)
		if err != nil {
			return j.readErr(err)
		}
		if p < 0 { // empty lines only: reserved space
			reserved += end
			end = 0
			break
		}
		if p == end-1 { // bytes without their newline at the end: a torn append
			nl, err := t.lastNewline(end)
			if err != nil {
				return j.tailErr(err)
			}
			end, cut = nl+1, true
			continue
		}
		blank := end - (p + 2) // newlines after the line's own
		reserved += blank
		end = p + 2
		start, line, err := t.lastLine(end)
		if err != nil {
			return j.tailErr(err)
		}
		e, h, _, perr := j.codec.parse(line, &scratch)
		if perr == nil {
			j.head = engine.JournalHead{Seq: e.Seq, Hash: h}
			j.last, j.lastStart = &e, start
			break
		}
		if perr.kind != broken {
			return j.refusedTail(start, perr)
		}
		// A torn write is the start of one line, or fragments of it: a
		// second line's start in it means two lines joined (a newline
		// changed), which cutting would lose. (A line whose base64 ends in
		// a magic, one in 8 million, looks so too: Open then refuses a
		// torn line it could have cut, and loses nothing.)
		if bytes.Contains(line[1:], []byte(magic+" ")) || bytes.Contains(line[1:], []byte(magicSealed+" ")) {
			return fmt.Errorf("%w: journal %s: last line at byte %d holds the start of another line: damage, not a torn write",
				engine.ErrCorrupt, j.path, start)
		}
		if cut && blank == 0 {
			return fmt.Errorf("%w: journal %s: last line at byte %d: %w; refusing to cut more than one torn line",
				engine.ErrCorrupt, j.path, start, perr)
		}
		end, cut = start, true
	}
	j.size, j.end = end, end
	j.truncated = size - end - reserved
	if size > end {
		if err := j.f.Truncate(end); err != nil {
			return fmt.Errorf("%w: journal %s: cut torn tail: %w", engine.ErrStorage, j.path, err)
		}
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("%w: journal %s: %w", engine.ErrStorage, j.path, err)
		}
	}
	return nil
}

// refusedTail is Open's error for a whole last line, starting at start,
// that the codec refused.
func (j *File) refusedTail(start int64, perr *lineError) error {
	if perr.kind != otherFormat {
		return j.refused(fmt.Sprintf("last line at byte %d", start), perr)
	}
	// A file never mixes formats: a journal whose first line is of the same
	// other format is all of it (Open checked the other end), and was
	// opened with the wrong Keys; otherwise a line was added.
	var first [len(magic) + 1]byte
	if _, err := j.f.ReadAt(first[:], 0); err != nil {
		return j.readErr(err)
	}
	switch {
	case j.codec.sealed() && string(first[:]) == magic+" ":
		return fmt.Errorf("%w: journal %s is in clear (%s) lines: Reseal it from journal.Plain", ErrNotSealed, j.path, magic)
	case !j.codec.sealed() && string(first[:]) == magicSealed+" ":
		return fmt.Errorf("%w: journal %s is sealed (%s lines), opened as Plain", ErrWrongKey, j.path, magicSealed)
	}
	return fmt.Errorf("journal %s last line at byte %d: %w; its first line is not: lines were added", j.path, start, perr)
}

// refused is the error for a whole line that the codec refused: where says
// which. A sealed line that does not open is a wrong key if no line of its
// generation opens, else damage or forgery.
func (j *File) refused(where string, perr *lineError) error {
	switch perr.kind {
	case noKey:
		return fmt.Errorf("%w: journal %s %s: %s", ErrWrongKey, j.path, where, perr.msg)
	case unauthentic:
		some, err := j.opens(perr.gen)
		if err != nil {
			return err
		}
		if !some {
			return fmt.Errorf("%w: journal %s %s: %s, nor does any line of that generation", ErrWrongKey, j.path, where, perr.msg)
		}
		return fmt.Errorf("journal %s %s: %w, though other lines of that generation do: altered or forged", j.path, where, perr)
	}
	return fmt.Errorf("journal %s %s: %w", j.path, where, perr)
}

// opens reports whether some line of the file, sealed under key generation
// gen, opens. It reads the whole file if none does, which only happens on
// the way to an error.
func (j *File) opens(gen uint32) (bool, error) {
	st, err := j.f.Stat()
	if err != nil {
		return false, j.readErr(err)
	}
	lr := newLineReader(j.f, st.Size())
	var scratch []byte
	for {
		line, err := lr.next()
		if err == io.EOF || errors.Is(err, errNotLine) {
			return false, nil
		}
		if err != nil {
			return false, j.readErr(err)
		}
		if g, ok := sealedGen(line); !ok || g != gen {
			continue
		}
		if _, _, _, perr := j.codec.parse(line, &scratch); perr == nil || perr.kind == invalid {
			return true, nil
		}
	}
}

func (j *File) readErr(err error) error {
	return fmt.Errorf("%w: read journal %s: %w", engine.ErrStorage, j.path, err)
}

func (j *File) tailErr(err error) error {
	if errors.Is(err, errNoLine) {
		return fmt.Errorf("%w: journal %s: %w", engine.ErrCorrupt, j.path, err)
	}
	return j.readErr(err)
}

// Truncated is how many bytes of a torn last line Open cut off (0 if none),
// for the caller to log; the reserved space it removed is not counted.
func (j *File) Truncated() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.truncated
}

// Path is the journal file's path.
func (j *File) Path() string { return j.path }

// Head is the last entry's number and hash; zero for an empty journal.
func (j *File) Head() engine.JournalHead {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.head
}

// Append writes e as one line and syncs it. e must follow the head (Seq one
// more, Prev its hash), else the error wraps engine.ErrCorrupt and nothing is
// written. A failed write or sync is undone (no partial line stays) and
// wraps engine.ErrStorage, and engine.ErrDiskFull when the disk is full
// (also when there is no room to reserve space ahead).
func (j *File) Append(e engine.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.f == nil:
		return fmt.Errorf("%w: journal %s is closed", engine.ErrStorage, j.path)
	case j.broken != nil:
		return j.broken
	case e.Seq != j.head.Seq+1 || e.Prev != j.head.Hash:
		return fmt.Errorf("%w: journal %s: entry %d (after %.12s) does not follow entry %d (%.12s)",
			engine.ErrCorrupt, j.path, e.Seq, e.Prev, j.head.Seq, j.head.Hash)
	}
	raw, err := e.MarshalBinary()
	if err != nil {
		return fmt.Errorf("encode journal entry %d: %w", e.Seq, err)
	}
	h := engine.Hash(sha256.Sum256(raw))
	line := j.codec.appendLine(j.line[:0], e.Seq, raw, h, &j.scratch)
	j.line = line
	if need := j.size + int64(len(line)); need > j.end {
		if err := j.reserve(need + reserveAhead); err != nil {
			return err
		}
	}
	if _, err := j.f.WriteAt(line, j.size); err != nil {
		return j.failed("write", err, j.blank(j.size, j.size+int64(len(line))))
	}
	if err := syscall.Fdatasync(int(j.f.Fd())); err != nil {
		return j.failed("sync", err, j.blank(j.size, j.size+int64(len(line))))
	}
	j.last, j.lastStart = &e, j.size
	j.size += int64(len(line))
	j.head = engine.JournalHead{Seq: e.Seq, Hash: h}
	return nil
}

// Last is the entry at the head, known after Open and after an Append.
func (j *File) Last() (engine.JournalEntry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.last == nil {
		return engine.JournalEntry{}, false
	}
	return *j.last, true
}

// Retract removes the last entry, which must be at h: an entry appended for
// a store commit that then failed. Only the last appended or opened entry
// can be retracted.
func (j *File) Retract(h engine.JournalHead) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil || j.last == nil || j.head != h {
		return fmt.Errorf("%w: journal %s: cannot retract entry %d (head %d)", engine.ErrCorrupt, j.path, h.Seq, j.head.Seq)
	}
	if err := j.blank(j.lastStart, j.size); err != nil {
		return fmt.Errorf("%w: journal %s: retract entry %d: %w", engine.ErrStorage, j.path, h.Seq, err)
	}
	j.size = j.lastStart
	j.head = engine.JournalHead{Seq: j.last.Seq - 1, Hash: j.last.Prev}
	j.last = nil
	return nil
}

// reserve writes empty lines from the end of the file to end and syncs
// them with the file's new size. On failure the file is cut back.
func (j *File) reserve(end int64) error {
	err := j.pad(j.end, end)
	if err == nil {
		err = j.f.Sync()
	}
	if err == nil {
		j.end = end
		return nil
	}
	return j.failed("reserve space", err, j.f.Truncate(j.end))
}

// pad writes newlines over [from, to).
func (j *File) pad(from, to int64) error {
	for from < to {
		n, err := j.f.WriteAt(newlines[:min(to-from, int64(len(newlines)))], from)
		if err != nil {
			return err
		}
		from += int64(n)
	}
	return nil
}

// blank turns [from, to) back into reserved space and syncs it.
func (j *File) blank(from, to int64) error {
	if err := j.pad(from, to); err != nil {
		return err
	}
	return syscall.Fdatasync(int(j.f.Fd()))
}

// failed reports a failed op, wrapping engine.ErrDiskFull when the disk is
// full, once undo (the result of undoing what it may have left after the
// last good line) succeeded; if undo failed, the journal stays broken until
// it is reopened.
func (j *File) failed(op string, err, undo error) error {
	if errors.Is(err, syscall.ENOSPC) {
		err = fmt.Errorf("%w: %w", engine.ErrDiskFull, err)
	}
	if undo != nil {
		j.broken = fmt.Errorf("%w: journal %s: %s failed (%w) and could not be undone (%v): reopen it", engine.ErrStorage, j.path, op, err, undo)
		return j.broken
	}
	return fmt.Errorf("%w: journal %s: %s: %w", engine.ErrStorage, j.path, op, err)
}

// Entries calls fn for every entry from the first, checking each line's
// format, hash or tag, and the chain: numbers from 1 without gaps, each
// entry's Prev the hash of the one before. A mismatch gives an error
// wrapping engine.ErrCorrupt with the line number and what is wrong, or
// ErrWrongKey for lines the keys do not open (see ErrWrongKey); fn's errors
// come back unchanged. Entries appended while it runs are not visited.
func (j *File) Entries(fn func(engine.JournalEntry) error) error {
	return j.each(func(e engine.JournalEntry, _ []byte) error { return fn(e) })
}

// each is Entries, also giving each entry's canonical encoding, valid
// during the call.
func (j *File) each(fn func(e engine.JournalEntry, raw []byte) error) error {
	j.mu.Lock()
	f, size, head := j.f, j.size, j.head
	j.mu.Unlock()
	if f == nil {
		return fmt.Errorf("%w: journal %s is closed", engine.ErrStorage, j.path)
	}
	corrupt := func(n int, format string, a ...any) error {
		return fmt.Errorf("%w: journal %s line %d: %s", engine.ErrCorrupt, j.path, n, fmt.Sprintf(format, a...))
	}
	lr := newLineReader(f, size)
	var prev engine.JournalHead
	var scratch []byte
	for n := 1; ; n++ {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errNotLine) {
			return corrupt(n, "%v", err)
		}
		if err != nil {
			return j.readErr(err)
		}
		e, h, raw, perr := j.codec.parse(line, &scratch)
		if perr != nil {
			return j.refused(fmt.Sprintf("line %d", n), perr)
		}
		if e.Seq != prev.Seq+1 {
			return corrupt(n, "entry %d follows entry %d", e.Seq, prev.Seq)
		}
		if e.Prev != prev.Hash {
			return corrupt(n, "entry %d chains to %s, entry %d hashes to %s", e.Seq, e.Prev, prev.Seq, prev.Hash)
		}
		if err := fn(e, raw); err != nil {
			return err
		}
		prev = engine.JournalHead{Seq: e.Seq, Hash: h}
	}
	if prev != head {
		return fmt.Errorf("%w: journal %s ends at entry %d, its head says %d: the file changed while open",
			engine.ErrCorrupt, j.path, prev.Seq, head.Seq)
	}
	return nil
}

// lineReader reads a file's lines from its start.
type lineReader struct {
	r    *bufio.Reader
	long []byte // a line longer than r's buffer
}

// errNotLine: what follows is not a journal's line (errors wrap it).
var errNotLine = errors.New("not a line")

func newLineReader(f *os.File, size int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<20)}
}

// next is the next line, its newline included and valid until the next
// call; io.EOF after the last line.
func (lr *lineReader) next() ([]byte, error) {
	line, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(lr.long) <= maxLine {
			line, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, line...)
		}
		if len(lr.long) > maxLine {
			return nil, fmt.Errorf("%w: line longer than %d bytes", errNotLine, maxLine)
		}
		line = lr.long
	}
	if err == io.EOF {
		if len(line) > 0 {
			return nil, fmt.Errorf("%w: no newline at the end of the file", errNotLine)
		}
		return nil, io.EOF
	}
	return line, err
}

// Close gives the reserved space back, leaving only the entries' lines, and
// closes the file; later calls do nothing.
func (j *File) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	var err error
	if j.end > j.size && j.broken == nil {
		if err = j.f.Truncate(j.size); err == nil {
			err = j.f.Sync()
		}
	}
	err = errors.Join(err, j.f.Close())
	j.f = nil
	if err != nil {
		return fmt.Errorf("%w: close journal %s: %w", engine.ErrStorage, j.path, err)
	}
	return nil
}

// tail reads a file backwards in chunks.
type tail struct {
	f   *os.File
	buf []byte
}

// errNoLine: no newline within maxLine bytes of the end. A torn append
// leaves at most one line; more is not a journal's tail.
var errNoLine = errors.New("no line end in the last 64 MiB")

// lastNewline is the offset of the last '\n' before end, or -1 if the file
// starts less than maxLine bytes before end.
func (t *tail) lastNewline(end int64) (int64, error) {
	from := max(end-maxLine, 0)
	nl, err := t.last(from, end, func(b byte) bool { return b == '\n' })
	if err == nil && nl < 0 && from > 0 {
		return 0, errNoLine
	}
	return nl, err
}

// lastNot is the offset of the last byte before end that is not c, or -1.
func (t *tail) lastNot(c byte, end int64) (int64, error) {
	return t.last(0, end, func(b byte) bool { return b != c })
}

// last is the offset of the last byte in [from, end) that match accepts, or
// -1.
func (t *tail) last(from, end int64, match func(byte) bool) (int64, error) {
	for end > from {
		start := max(end-int64(len(t.buf)), from)
		b := t.buf[:end-start]
		if _, err := t.f.ReadAt(b, start); err != nil {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if match(b[i]) {
				return start + int64(i), nil
			}
		}
		end = start
	}
	return -1, nil
}

// lastLine is the line ending with the newline at end-1: its start and its
// bytes without the newline.
func (t *tail) lastLine(end int64) (int64, []byte, error) {
	nl, err := t.lastNewline(end - 1)
	if err != nil {
		return 0, nil, err
	}
	start := nl + 1
	line := make([]byte, end-1-start)
	if _, err := t.f.ReadAt(line, start); err != nil {
		return 0, nil, err
	}
	return start, line, nil
}
