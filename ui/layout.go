package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// shapeLayout places the window's three parts for its shape, and follows
// it live (a rotated screen, a resized window):
//   - landscape (wider than tall): the header across the top, the side
//     panel (controls or history) on the right at its minimum width, the
//     board in the rest, as a border layout does;
//   - portrait: the header, then the board across the full width, then the
//     side panel under it, full width, in the rest.
//
// onShape is told when the shape changes, so that the side panel can
// arrange itself for it before it is placed.
type shapeLayout struct {
	header, board, side fyne.CanvasObject
	onShape             func(portrait bool)
	portrait            bool
}

// boardPortraitHeight is the height the board wants per pixel of width in
// portrait: the tilted board with the pucks above it (see newProjection).
const boardPortraitHeight = 0.9

func (l *shapeLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	portrait := size.Height > size.Width
	if portrait != l.portrait {
		l.portrait = portrait
		if l.onShape != nil {
			l.onShape(portrait)
		}
	}
	pad := theme.Padding()
	headerH := l.header.MinSize().Height
	l.header.Move(fyne.NewPos(0, 0))
	l.header.Resize(fyne.NewSize(size.Width, headerH))
	top := headerH + pad
	rest := size.Height - top
	if !portrait {
		sideW := l.side.MinSize().Width
		l.side.Move(fyne.NewPos(size.Width-sideW, top))
		l.side.Resize(fyne.NewSize(sideW, rest))
		l.board.Move(fyne.NewPos(0, top))
		l.board.Resize(fyne.NewSize(size.Width-sideW-pad, rest))
		return
	}
	boardH := min(size.Width*boardPortraitHeight, rest-pad-l.side.MinSize().Height)
	boardH = max(boardH, l.board.MinSize().Height)
	l.board.Move(fyne.NewPos(0, top))
	l.board.Resize(fyne.NewSize(size.Width, boardH))
	l.side.Move(fyne.NewPos(0, top+boardH+pad))
	l.side.Resize(fyne.NewSize(size.Width, rest-boardH-pad))
}

// MinSize is the smaller of the two shapes' needs in each direction: the
// window may be turned either way.
func (l *shapeLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	pad := theme.Padding()
	h, b, s := l.header.MinSize(), l.board.MinSize(), l.side.MinSize()
	landscape := fyne.NewSize(max(h.Width, b.Width+pad+s.Width), h.Height+pad+max(b.Height, s.Height))
	portrait := fyne.NewSize(max(h.Width, b.Width, s.Width), h.Height+b.Height+s.Height+2*pad)
	return fyne.NewSize(min(landscape.Width, portrait.Width), min(landscape.Height, portrait.Height))
}

// pair sets two panels side by side in a wide space, halves of its width;
// in a tall one, one above the other: halves of its height when even, else
// the first its own height and the second what it needs of the rest.
type pair struct{ even bool }

func (pair) MinSize(objs []fyne.CanvasObject) fyne.Size {
	a, b := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(max(a.Width, b.Width), max(a.Height, b.Height))
}

func (p pair) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding() * 2
	if size.Width >= size.Height {
		w := (size.Width - pad) / 2
		objs[0].Move(fyne.NewPos(0, 0))
		objs[0].Resize(fyne.NewSize(w, size.Height))
		objs[1].Move(fyne.NewPos(w+pad, 0))
		objs[1].Resize(fyne.NewSize(w, size.Height))
		return
	}
	h, rest := (size.Height-pad)/2, (size.Height-pad)/2
	if !p.even {
		h = objs[0].MinSize().Height
		rest = min(objs[1].MinSize().Height, size.Height-h-pad)
	}
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width, h))
	objs[1].Move(fyne.NewPos(0, h+pad))
	objs[1].Resize(fyne.NewSize(size.Width, rest))
}
