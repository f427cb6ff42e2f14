package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
)

// Run opens the Star Fortune window for o.Player and returns when it is
// closed, or when ctx ends (SIGTERM from a service manager): the window then
// quits as if closed, so the store is closed cleanly.
func Run(ctx context.Context, g Game, o Options) error {
	a := app.NewWithID("fr.starfortune.kiosk")
	k := NewKiosk(a, g, o)
	stop := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	defer stop()
	k.Window().ShowAndRun()
	k.Wait() // an engine call in flight ends before the store is closed
	return nil
}
