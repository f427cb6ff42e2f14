package cli

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"starfortune/engine"
)

// unitLines prints units [from, to) of b as `history --json` does.
func unitLines(t *testing.T, b *engine.Block, from, to int) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := from; i < to; i++ {
		u, err := b.Unit(i)
		if err != nil {
			t.Fatal(err)
		}
		s := engine.Sale{Record: engine.Record{Ticket: engine.Ticket{Block: b.Ref, Index: uint32(i)}, Player: "p", Time: time.Unix(0, 0), Unit: u},
			Reveal: engine.NewReveal()}
		if err := enc.Encode(toJSON(s)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestVerify(t *testing.T) {
	ref := engine.BlockRef{Emission: 2, Stake: 100, Number: 3}
	var seed engine.Seed
	seed[0] = 42
	b := engine.GenerateBlock(ref, seed)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	part := unitLines(t, b, 1000, 3000)
	tampered := bytes.Replace(part, []byte(`"prize_cents":0,`), []byte(`"prize_cents":100,`), 1)
	seedHex, rootHex := hex.EncodeToString(seed[:]), b.Commitment.String()
	cases := []struct {
		name, file, seed, root string
		want                   error
		out                    string
	}{
		{"the sold units of the block", write("part.jsonl", part), seedHex, rootHex, nil, "2000 units of the file and 848000 drawn again from the seed: matches"},
		{"a prize changed", write("tampered.jsonl", tampered), seedHex, rootHex, errRootMismatch, "DOES NOT MATCH"},
		{"another seed", write("part2.jsonl", part), strings.Repeat("00", 32), rootHex, errRootMismatch, "DOES NOT MATCH"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runCommand("verify", []string{"--seed", c.seed, "--root", c.root, c.file}, &out)
			if !errors.Is(err, c.want) || !strings.Contains(out.String(), c.out) {
				t.Fatalf("err %v, output %q; want %v and %q", err, out.String(), c.want, c.out)
			}
		})
	}
	var usage usageError
	if err := runCommand("verify", []string{"--seed", "zz", "--root", rootHex, "x"}, &bytes.Buffer{}); !errors.As(err, &usage) {
		t.Fatalf("bad seed: %v, want a usage error", err)
	}
}
