package ui

import (
	"context"

	"fyne.io/fyne/v2/lang"

	"starfortune/engine"
)

// ShowHistory opens the history panel in place of the controls.
func (k *Kiosk) ShowHistory() {
	k.touched()
	if k.sale != nil || k.busy {
		return
	}
	k.controls.Hide()
	k.history.Show()
	k.loadHistory(0)
}

// BackToGame closes the history panel and any replay.
func (k *Kiosk) BackToGame() {
	k.touched()
	k.leaveRecall()
	k.history.Hide()
	k.controls.Show()
}

// loadHistory reads history page i (0: the newest units).
func (k *Kiosk) loadHistory(i int) {
	before, player := k.pages.from(i), k.player
	k.call(false, func(ctx context.Context) func() {
		sales, next, err := k.game.History(ctx, player, before, HistoryPage)
		var last []engine.Sale
		if err == nil && before != 0 {
			last, _, err = k.game.History(ctx, player, 0, 1)
		}
		return func() {
			if err != nil {
				k.fail(err)
				return
			}
			if before == 0 {
				last = sales
			}
			k.last = nil
			if len(last) > 0 {
				k.last = &last[0]
			}
			k.pages.shown(i, next)
			k.history.SetPage(k.last, sales, i+1, next != 0)
		}
	})
}

// Recall replays the fall of unit s on the board, exactly (same paths), in
// RAPPEL mode: no engine call, no money.
func (k *Kiosk) Recall(s engine.Sale) {
	k.touched()
	if k.sale != nil || k.busy {
		return
	}
	k.recall = true
	k.replay++
	gen := k.replay
	k.history.SetRecall(true)
	k.bonus.Hide()
	k.board.Stake = s.Stake()
	k.board.Clear()
	k.board.SetBanner(lang.L("RECALL — ticket {{.Ticket}}: replay only, no money moves",
		map[string]any{"Ticket": s.Ticket.String()}), true)
	var drop func(d int)
	drop = func(d int) {
		if gen != k.replay || d > 1 || s.Reveal.Slots[d] == engine.NoSlot {
			return
		}
		path, err := s.Fall(d, s.Reveal.Slots[d])
		if err != nil {
			k.fail(err)
			return
		}
		k.board.Drop(d, path, k.Speed, func() {
			if gen != k.replay {
				return
			}
			dd := s.Unit.Drops[d]
			if dd.Dest.Bonus && s.Reveal.Go[d] {
				k.board.RevealBox(dd.Dest.Index, shortAmount(dd.Value(s.Stake())))
			}
			k.after(pauseInRecall, func() { drop(d + 1) })
		})
	}
	drop(0)
}

// Recalling reports whether the board is in RAPPEL mode.
func (k *Kiosk) Recalling() bool { return k.recall }

func (k *Kiosk) leaveRecall() {
	if !k.recall {
		return
	}
	k.recall = false
	k.replay++
	k.history.SetRecall(false)
	k.board.Clear()
	k.board.SetBanner("", false)
	k.board.Stake = k.stake
	k.board.Refresh()
}
