package present_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"testing"

	"github.com/rs/zerolog"

	"starfortune/engine"
	"starfortune/engine/memstore"
	"starfortune/present"
)

func TestCSV(t *testing.T) {
	ctx := context.Background()
	s, err := engine.NewService(ctx, memstore.New(), engine.Config{Emission: 1, BlocksPerStake: 1, DemoFunds: 10_000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sales, err := s.Sell(ctx, engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 3, Actor: "test",
		Picks: func(int) [2]int { return [2]int{0, 2} }})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.BlockReport(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := present.BlockReportCSV(&buf, rep); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][1] != "stake_eur" || rows[1][1] != "0.50" || rows[1][3] != "3" {
		t.Fatalf("block csv %v %v", rows, err)
	}
	buf.Reset()
	if err := present.HistoryCSV(&buf, sales[:2]); err != nil {
		t.Fatal(err)
	}
	rows, err = csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][1] != sales[0].Ticket.String() || rows[1][3] != "0.50" || rows[1][7] != "1" || rows[1][10] != "3" {
		t.Fatalf("history csv %v %v", rows, err)
	}
}
