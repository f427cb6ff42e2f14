package keyring_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/iotest"

	"starfortune/keyring"
)

const chunk = keyring.ChunkSize

// streamKeys is a ring's keys for the stream tests; cheap to make.
func streamKeys(t testing.TB) keyring.Keys {
	t.Helper()
	dir := t.TempDir()
	_, k, err := keyring.CreateDemo(dir+"/keyring", dir+"/demo")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func plaintext(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(n), byte(n >> 8), byte(n >> 16)})
	r.Read(b)
	return b
}

// seal seals data in writes of the given size (0: one write).
func seal(t testing.TB, k keyring.Keys, data []byte, write int) []byte {
	t.Helper()
	var out bytes.Buffer
	cur := k.Current()
	w := keyring.NewSealWriter(&out, cur.Backup(), cur.Gen())
	if write == 0 {
		write = max(len(data), 1)
	}
	for p := data; len(p) > 0; {
		n := min(write, len(p))
		if m, err := w.Write(p[:n]); err != nil || m != n {
			t.Fatalf("Write: %d, %v", m, err)
		}
		p = p[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// open reads a sealed stream to its end, returning what the reader gave
// before its error.
func open(k keyring.Keys, sealed []byte) ([]byte, error) {
	r, err := keyring.NewSealReader(bytes.NewReader(sealed), k)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

const header = 56 // magic line, generation, nonce prefix, key check

func frames(n int) int { return max(1, (n+chunk-1)/chunk) }

func TestStreamRoundTrip(t *testing.T) {
	k := streamKeys(t)
	for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, 1 << 20} {
		for _, write := range []int{0, 1000, chunk} {
			if write == 1000 && n > 4*chunk {
				continue
			}
			data := plaintext(n)
			sealed := seal(t, k, data, write)
			if want := header + n + 16*frames(n); len(sealed) != want {
				t.Errorf("%d bytes in writes of %d: sealed to %d bytes, want %d", n, write, len(sealed), want)
			}
			got, err := open(k, sealed)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes in writes of %d: %d bytes back, %v", n, write, len(got), err)
			}
		}
		// The reader keeps io.Reader's rules however it is read.
		r, err := keyring.NewSealReader(bytes.NewReader(seal(t, k, plaintext(n), 0)), k)
		if err != nil {
			t.Fatal(err)
		}
		if err := iotest.TestReader(r, plaintext(n)); err != nil {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	// The nonce prefix is random: the same data seals differently.
	if bytes.Equal(seal(t, k, []byte("x"), 0), seal(t, k, []byte("x"), 0)) {
		t.Error("two seals of the same data are equal")
	}
	// A previous generation still reads.
	ring := newFixture(t, "rotating")
	prev, _ := ring.keys.Previous()
	var buf bytes.Buffer
	w := keyring.NewSealWriter(&buf, prev.Backup(), prev.Gen())
	w.Write([]byte("old backup"))
	w.Close()
	if got, err := open(ring.keys, buf.Bytes()); err != nil || string(got) != "old backup" {
		t.Fatalf("previous generation: %q, %v", got, err)
	}
}

// TestStreamTruncated cuts a stream at every chunk's boundary and inside
// each chunk: the reader gives only whole chunks that authenticated, then
// ErrDamaged, and never io.EOF.
func TestStreamTruncated(t *testing.T) {
	k := streamKeys(t)
	for _, n := range []int{0, 100, chunk, 2 * chunk, 3*chunk + 100} {
		data := plaintext(n)
		sealed := seal(t, k, data, 0)
		var cuts []int
		for i := range frames(n) {
			at := header + i*(chunk+16)
			cuts = append(cuts, at, at+1, at+15, at+16, at+chunk/2, at+chunk+15)
		}
		cuts = append(cuts, 0, 1, 20, header-1, len(sealed)-1)
		for _, cut := range cuts {
			if cut < 0 || cut >= len(sealed) {
				continue
			}
			got, err := open(k, sealed[:cut])
			if !errors.Is(err, keyring.ErrDamaged) {
				t.Fatalf("%d bytes cut at %d: %v, want ErrDamaged", n, cut, err)
			}
			if len(got)%chunk != 0 || !bytes.HasPrefix(data, got) {
				t.Fatalf("%d bytes cut at %d: gave %d bytes that are not whole chunks of the data", n, cut, len(got))
			}
		}
	}
}

func TestStreamReordered(t *testing.T) {
	k := streamKeys(t)
	data := plaintext(3*chunk + 100)
	sealed := seal(t, k, data, 0)
	frame := func(b []byte, i int) []byte {
		at := header + i*(chunk+16)
		return b[at:min(at+chunk+16, len(b))]
	}
	head := sealed[:header]
	for _, c := range []struct {
		name   string
		frames []int
	}{
		{"swap 0 and 1", []int{1, 0, 2, 3}},
		{"swap 1 and 2", []int{0, 2, 1, 3}},
		{"drop a middle chunk", []int{0, 1, 3}},
		{"repeat a chunk", []int{0, 1, 1, 2, 3}},
		{"last chunk first", []int{3}},
	} {
		b := slices.Clone(head)
		for _, i := range c.frames {
			b = append(b, frame(sealed, i)...)
		}
		if _, err := open(k, b); !errors.Is(err, keyring.ErrDamaged) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestStreamWrongKey(t *testing.T) {
	k := streamKeys(t)
	other := streamKeys(t) // another ring's generation 1
	sealed := seal(t, k, plaintext(100), 0)
	if _, err := open(other, sealed); !errors.Is(err, keyring.ErrWrongKey) {
		t.Errorf("another ring's keys: %v", err)
	}
	rot := newFixture(t, "rotating")
	cur := rot.keys.Current()
	var buf bytes.Buffer
	w := keyring.NewSealWriter(&buf, cur.Backup(), cur.Gen())
	w.Close()
	if _, err := open(k, buf.Bytes()); !errors.Is(err, keyring.ErrWrongKey) {
		t.Errorf("a generation the keys lack: %v", err)
	}
	// The journal's key is not the backup key.
	buf.Reset()
	w = keyring.NewSealWriter(&buf, k.Current().Journal(), 1)
	w.Close()
	if _, err := open(k, buf.Bytes()); !errors.Is(err, keyring.ErrWrongKey) {
		t.Errorf("a stream sealed with the journal key: %v", err)
	}
	if _, err := open(keyring.Keys{}, sealed); !errors.Is(err, keyring.ErrWrongKey) {
		t.Errorf("no keys: %v", err)
	}
}

func TestStreamAppended(t *testing.T) {
	k := streamKeys(t)
	for _, n := range []int{0, 100, chunk, 2 * chunk} {
		sealed := seal(t, k, plaintext(n), 0)
		for _, extra := range [][]byte{{0}, make([]byte, 16), make([]byte, chunk+16), seal(t, k, []byte("more"), 0)[header:], sealed[header:]} {
			b := append(slices.Clone(sealed), extra...)
			if _, err := open(k, b); !errors.Is(err, keyring.ErrDamaged) {
				t.Errorf("%d bytes + %d appended: %v", n, len(extra), err)
			}
		}
	}
}

// TestStreamTamper flips each byte of a small stream: an error every time
// (the header's bytes give ErrWrongKey or ErrDamaged, the chunk's
// ErrDamaged), and no byte given back.
func TestStreamTamper(t *testing.T) {
	k := streamKeys(t)
	sealed := seal(t, k, plaintext(100), 0)
	for i := range sealed {
		b := slices.Clone(sealed)
		b[i] ^= 0x04
		got, err := open(k, b)
		wantErr := keyring.ErrDamaged
		if i >= 21 && i < header {
			wantErr = keyring.ErrWrongKey // generation, nonce prefix, key check
		}
		if !errors.Is(err, wantErr) || len(got) != 0 {
			t.Fatalf("byte %d: %d bytes, %v; want %v", i, len(got), err, wantErr)
		}
	}
}

type failWriter struct{ after int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after < len(p) {
		return 0, errDisk
	}
	f.after -= len(p)
	return len(p), nil
}

func TestSealWriterErrors(t *testing.T) {
	k := streamKeys(t).Current()
	w := keyring.NewSealWriter(&failWriter{after: header}, k.Backup(), k.Gen())
	if _, err := w.Write(make([]byte, 2*chunk)); !errors.Is(err, errDisk) {
		t.Fatalf("Write on a full disk: %v", err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, errDisk) {
		t.Errorf("Write after an error: %v", err)
	}
	if err := w.Close(); !errors.Is(err, errDisk) {
		t.Errorf("Close after an error: %v", err)
	}

	var buf bytes.Buffer
	w = keyring.NewSealWriter(&buf, k.Backup(), k.Gen())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("Write after Close")
	}
}

// The stream's throughput, for the backup's budget.
func BenchmarkSealWriter(b *testing.B) {
	k := streamKeys(b).Current()
	data := plaintext(1 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		w := keyring.NewSealWriter(io.Discard, k.Backup(), k.Gen())
		w.Write(data)
		w.Close()
	}
}

func BenchmarkSealReader(b *testing.B) {
	k := streamKeys(b)
	data := plaintext(1 << 20)
	sealed := seal(b, k, data, 0)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, err := keyring.NewSealReader(bytes.NewReader(sealed), k)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

// The cost of unlocking a passphrase slot at the kiosk's default cost:
// doc.go gives the figure.
func BenchmarkUnlockPassphraseDefault(b *testing.B) {
	keyring.PassphraseCost = keyring.DefaultPassphraseCost
	defer func() { keyring.PassphraseCost = cheap }()
	dir := b.TempDir()
	r, _, err := keyring.CreatePassphrase(dir+"/keyring", pass)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.UnlockPassphrase(pass); err != nil {
			b.Fatal(err)
		}
	}
}
