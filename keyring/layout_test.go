package keyring_test

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"testing"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"

	"starfortune/keyring"
)

// TestLayoutAsDocumented opens a keyring file and a sealed stream by
// following doc.go alone, with x/crypto directly: the description is what
// an auditor or another implementation would work from.
func TestLayoutAsDocumented(t *testing.T) {
	b, err := os.ReadFile(goldenPath("rotating"))
	if err != nil {
		t.Fatal(err)
	}
	want := goldenKeys(t, "rotating")
	n := int(b[42])
	h := b[:42]
	slot := b[84+40*n : 84+40*n+106] // the first slot: the passphrase
	if slot[0] != 1 {
		t.Fatalf("first slot of kind %d", slot[0])
	}
	kek := argon2.IDKey(pass, slot[18:34], binary.BigEndian.Uint32(slot[9:]), binary.BigEndian.Uint32(slot[13:]), slot[17], 32)
	aead, _ := chacha20poly1305.NewX(kek)
	w, err := aead.Open(nil, slot[34:58], slot[58:106], append(bytes.Clone(h), slot[:34]...))
	if err != nil {
		t.Fatalf("the slot: %v", err)
	}
	aead, _ = chacha20poly1305.NewX(w)
	plain, err := aead.Open(nil, b[43+4*n:67+4*n], b[67+4*n:83+40*n], b[:43+4*n])
	if err != nil {
		t.Fatalf("the payload: %v", err)
	}
	for i, g := range want.Generations() {
		k, _ := want.Gen(g)
		e := plain[i*36:]
		if binary.BigEndian.Uint32(e) != g || !bytes.Equal(e[4:36], keyring.KeyBytes(k)) {
			t.Fatalf("generation %d differs", g)
		}
	}
	if sum := sha256.Sum256(b[:len(b)-32]); !bytes.Equal(sum[:], b[len(b)-32:]) {
		t.Fatal("the checksum")
	}

	s, err := os.ReadFile("testdata/sealed")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := goldenKeys(t, "passphrase").Gen(binary.BigEndian.Uint32(s[21:]))
	bk := key.Backup()
	check, _ := hkdf.Key(sha256.New, bk[:], s[:40], "starfortune/sealed/v1/key-check", 16)
	if !bytes.Equal(check, s[40:56]) {
		t.Fatal("the key check")
	}
	aead, _ = chacha20poly1305.NewX(bk[:])
	var got []byte
	for i, rest := 0, s[56:]; len(rest) > 0; i++ {
		frame := rest[:min(len(rest), chunk+16)]
		rest = rest[len(frame):]
		nonce := binary.BigEndian.AppendUint64(bytes.Clone(s[25:40]), uint64(i))
		if len(rest) == 0 {
			nonce = append(nonce, 1)
		} else {
			nonce = append(nonce, 0)
		}
		p, err := aead.Open(nil, nonce, frame, s[:56])
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		got = append(got, p...)
	}
	if !bytes.Equal(got, plaintext(goldenStreamSize)) {
		t.Fatal("the stream's plaintext")
	}
}
