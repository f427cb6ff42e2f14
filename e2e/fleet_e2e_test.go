// Three kiosk processes sell a whole block: minutes, so `make fleet-e2e`
// runs it, not make test.

package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"starfortune/central"
)

// Three kiosk processes sell one whole 0,50 € block together through packs
// (play --batch), the block closes and its seed is revealed, the central's
// audit is clean, and the root recomputes from the seed and the units the
// kiosks sold, by a verifier written from docs/auditing.md alone (merkleRoot
// below: the standard library only) and by `starfortune verify`.
func TestFleetThreeKiosksSellAWholeBlock(t *testing.T) {
	if os.Getenv("STARFORTUNE_FLEET_E2E") == "" {
		t.Skip("three kiosks selling a whole block take minutes: make fleet-e2e runs it (STARFORTUNE_FLEET_E2E=1)")
	}
	const size = 850_000
	db, _ := fleetCentralMaybePooled(t, 10_000)
	ids := []string{"k1", "k2", "k3"}
	dirs, urls := map[string]string{}, map[string]string{}
	for _, id := range ids {
		dirs[id], urls[id] = t.TempDir(), fleetKiosk(t, db, id)
		mustKiosk(t, dirs[id], urls[id], id, "wallet", "credit", "--amount", "300000")
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(starfortune(t), append(append([]string{"--data", dirs[id]}, centralFlag(urls[id], id)...),
				"play", "--stake", "0.5", "--n", fmt.Sprint(size), "--batch", "2048")...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			// A kiosk stops when the central has no pack left to hand out.
			if err == nil || !strings.Contains(stderr.String(), "no unit left") {
				log, _ := os.ReadFile(filepath.Join(dirs[id], "logs", "starfortune.log"))
				lines := strings.Split(strings.TrimSpace(string(log)), "\n")
				errs <- fmt.Errorf("kiosk %s: %v: %s\nits log's last lines:\n%s", id, err, stderr.String(), strings.Join(lines[max(0, len(lines)-8):], "\n"))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	units := filepath.Join(t.TempDir(), "units.jsonl")
	f, err := os.Create(units)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		// Batches of 2 048 outrun the background pushes: the rest goes now.
		var s syncJSON
		if out := mustKiosk(t, dirs[id], urls[id], id, "sync", "--json"); json.Unmarshal([]byte(out), &s) != nil || s.Backlog != 0 {
			t.Fatalf("kiosk %s: sync: %q", id, out)
		}
		if out, errOut, code := kioskCLI(t, dirs[id], urls[id], id, "audit"); code != 0 {
			t.Fatalf("kiosk %s audit: %d\n%s%s", id, code, out, errOut)
		}
		f.WriteString(mustKiosk(t, dirs[id], urls[id], id, "history", "--last", fmt.Sprint(size), "--json"))
	}
	f.Close()
	out, errOut, code := centralCLI(t, db, "blocks", "--json")
	var b central.Block
	if err := json.Unmarshal([]byte(out), &b); code != 0 || err != nil || !b.Closed || b.Seed == "" || b.Sold != size {
		t.Fatalf("block after the three kiosks: %q %s %v", out, errOut, err)
	}
	centralAuditOK(t, db)
	root, n, err := merkleRoot(units, b.Seed)
	if err != nil || n != size || root != b.Commitment {
		t.Fatalf("recomputed root %s from %d units (%v), published %s", root, n, err, b.Commitment)
	}
	if out, errOut, code := cli(t, t.TempDir(), "verify", "--seed", b.Seed, "--root", b.Commitment, units); code != 0 {
		t.Fatalf("starfortune verify: %d %s %s", code, out, errOut)
	}
}

// merkleRoot recomputes a block's root from its revealed seed and its units
// as `history --json` prints them, exactly as docs/auditing.md's "Verifying a
// block yourself" says, without the engine: SHA-256(seed || index) salts, RFC 6962
// leaf and node hashes.
func merkleRoot(file, seedHex string) (root string, n int, err error) {
	seed, err := hex.DecodeString(seedHex)
	if err != nil {
		return "", 0, err
	}
	f, err := os.Open(file)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	type drop struct {
		Kind       string `json:"kind"`
		Index      int    `json:"index"`
		ValueCents int64  `json:"value_cents"`
	}
	var u struct {
		Block      string `json:"block"`
		Index      uint32 `json:"index"`
		PrizeCents int64  `json:"prize_cents"`
		Drops      []drop `json:"drops"`
	}
	leaves := map[uint32][]byte{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return "", 0, err
		}
		var e, s, num uint64
		if _, err := fmt.Sscanf(u.Block, "%d-%d-%d", &e, &s, &num); err != nil {
			return "", 0, err
		}
		salt := sha256.Sum256(binary.BigEndian.AppendUint32(append([]byte{}, seed...), u.Index))
		leaf := salt[:]
		leaf = binary.BigEndian.AppendUint16(leaf, uint16(e))
		leaf = binary.BigEndian.AppendUint16(leaf, uint16(s))
		leaf = binary.BigEndian.AppendUint32(leaf, uint32(num))
		leaf = binary.BigEndian.AppendUint32(leaf, u.Index)
		leaf = binary.BigEndian.AppendUint64(leaf, uint64(u.PrizeCents))
		for _, d := range u.Drops {
			bonus := byte(0)
			if d.Kind == "bonus" {
				bonus = 1
			}
			leaf = append(leaf, bonus, byte(d.Index))
			leaf = binary.BigEndian.AppendUint64(leaf, uint64(d.ValueCents))
		}
		h := sha256.Sum256(append([]byte{0}, leaf...))
		if _, dup := leaves[u.Index]; dup {
			return "", 0, fmt.Errorf("position %d sold twice", u.Index)
		}
		leaves[u.Index] = h[:]
	}
	if err := sc.Err(); err != nil {
		return "", 0, err
	}
	level := make([][]byte, len(leaves))
	for i := range level {
		if level[i] = leaves[uint32(i)]; level[i] == nil {
			return "", 0, fmt.Errorf("position %d missing", i)
		}
	}
	for len(level) > 1 {
		var next [][]byte
		for k := 0; k+1 < len(level); k += 2 {
			h := sha256.Sum256(append(append([]byte{1}, level[k]...), level[k+1]...))
			next = append(next, h[:])
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return hex.EncodeToString(level[0]), len(leaves), nil
}
