// Command hello is the baseline of `make bench`: the smallest Fyne program
// with a window, sized like the game's (1280×800), so that the game's start
// and memory are judged against what any Fyne window costs on this machine.
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("fr.starfortune.hello")
	w := a.NewWindow("Hello Fyne")
	w.SetContent(widget.NewLabel("Hello Fyne!"))
	w.Resize(fyne.NewSize(1280, 800))
	w.ShowAndRun()
}
