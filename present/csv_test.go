package present_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"testing"
	"time"

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

func TestRegisterCSV(t *testing.T) {
	ticket := engine.Ticket{Block: engine.BlockRef{Emission: 1, Stake: 200, Number: 1}, Index: 412}
	at := time.Date(2026, 12, 7, 5, 11, 27, 0, time.FixedZone("CET", 3600))
	reg := []engine.RegisterEntry{
		{Record: engine.AccountRecord{Seq: 9, Time: at, Kind: engine.AccHeld, Player: "0000000013", Actor: "kiosk", Ticket: ticket, Amount: 250_000},
			Holder: "Camille Martin", Document: "CNI:X4RTBPFW4"},
		{Record: engine.AccountRecord{Seq: 11, Time: at, Kind: engine.AccHandPaid, Player: "0000000013", Actor: "camille", Ticket: ticket, Amount: 250_000,
			Text: "virement|VIR-2026-118"}, Holder: "Camille Martin", Document: "CNI:X4RTBPFW4"},
	}
	var buf bytes.Buffer
	if err := present.RegisterCSV(&buf, reg); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	want := [][]string{
		{"seq", "time", "kind", "player", "holder", "document", "ticket", "amount_eur", "detail", "actor"},
		{"9", "2026-12-07T04:11:27Z", "prize-held", "0000000013", "Camille Martin", "CNI:X4RTBPFW4", ticket.String(), "2500.00", "", "kiosk"},
		{"11", "2026-12-07T04:11:27Z", "hand-paid", "0000000013", "Camille Martin", "CNI:X4RTBPFW4", ticket.String(), "2500.00", "virement|VIR-2026-118", "camille"},
	}
	if err != nil || !slices.EqualFunc(rows, want, slices.Equal) {
		t.Fatalf("register csv %q %v", rows, err)
	}
}
