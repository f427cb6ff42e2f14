package ui

import (
	"context"
	"testing"

	"starfortune/engine"
)

// Paging through a long history, older then newer, shows each page in turn.
func TestHistoryPagesOlderAndNewer(t *testing.T) {
	k, svc := newTestKiosk(t, Options{})
	if _, err := svc.Sell(context.Background(), engine.SellRequest{Player: engine.DemoPlayer, Stake: 50, Count: 3*HistoryPage + 2,
		Picks: func(int) [2]int { return [2]int{0, 1} }}); err != nil {
		t.Fatal(err)
	}
	k.loadHistory(0)
	k.Wait()
	for _, step := range []struct {
		tap  func()
		want string
	}{
		{k.history.OnOlder, "Page 2"},
		{k.history.OnOlder, "Page 3"},
		{k.history.OnOlder, "Page 4"},
		{k.history.OnOlder, "Page 4"}, // nothing older: stays
		{k.history.OnNewer, "Page 3"},
		{k.history.OnNewer, "Page 2"},
		{k.history.OnOlder, "Page 3"},
		{k.history.OnNewer, "Page 2"},
		{k.history.OnNewer, "Page 1"},
		{k.history.OnNewer, "Page 1"},
	} {
		step.tap()
		k.Wait()
		if got := k.history.page.Text; got != step.want {
			t.Fatalf("shows %q, want %q", got, step.want)
		}
	}
	if k.history.older.Disabled() {
		t.Fatal("Older disabled on page 1 of a long history")
	}
}
