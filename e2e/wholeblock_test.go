//go:build !race

// Selling a whole block takes seconds normally and minutes under the race
// detector; make test runs this file in its own pass without -race.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/storage"
)

// A whole 0,50 € block sold through the command line with --batch: its
// history holds exactly the prize table of article 3, and pays 297 500 €.
func TestWholeBlockSoldByBatches(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "wallet", "credit", "--amount", "500000")
	var errOut bytes.Buffer
	if code := run([]string{"--data", dir, "play", "--stake", "0.5", "--n", fmt.Sprint(engine.BlockSize), "--batch", "2048"}, io.Discard, &errOut); code != 0 {
		t.Fatalf("play: %d %s", code, errOut.String())
	}
	ref := engine.BlockRef{Emission: 1, Stake: 50, Number: 1}
	err := withGame(context.Background(), dataDir(dir), engine.DefaultConfig(), zerolog.Nop(), io.Discard, func(svc *engine.Service, store *storage.Store) error {
		var tally engine.Tally
		var paid engine.Cents
		err := store.View(context.Background(), func(tx engine.ReadTx) error {
			return tx.Records(ref, func(r engine.Record) error {
				tally[r.Unit.Tier]++
				paid += r.Prize()
				return nil
			})
		})
		if err != nil {
			return err
		}
		if tally != engine.TableTally() || paid != 29_750_000 {
			return fmt.Errorf("sold block: tally %v (table %v), paid %s", tally, engine.TableTally(), paid)
		}
		blocks, err := svc.Blocks(context.Background())
		if err != nil {
			return err
		}
		if blocks[0].Ref != ref || !blocks[0].Exhausted() || blocks[0].Seed == (engine.Seed{}) {
			return fmt.Errorf("block 1 after selling it whole: %+v", blocks[0])
		}
		rep, err := svc.Audit(context.Background(), nil)
		if err != nil || !rep.OK() {
			return fmt.Errorf("audit: %v %q", err, rep.Findings)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The next unit comes from block 2, drawn in the background meanwhile.
	sales := decodeSales(t, mustCLI(t, dir, "play", "--stake", "0.5", "--json"))
	if sales[0].Block != "01-050-0002" || sales[0].Index != 0 {
		t.Fatalf("after block 1: %+v", sales[0])
	}
}
