package ui

// pager walks a history read newest first, a page at a time: the engine
// pages by a `before` cursor, so the pager remembers the cursor of every
// page seen to go back to newer ones. The kiosk's history and the operator's
// Players tab share it.
type pager struct {
	pages []uint64 // `before` cursor of each page seen; pages[0] = 0 (newest)
	at    int      // the page shown
}

func newPager() pager { return pager{pages: []uint64{0}} }

// from is the cursor to read page i with; page 0 forgets the pages seen
// (new units may have come).
func (p *pager) from(i int) uint64 {
	if i == 0 {
		p.pages = p.pages[:1]
	}
	return p.pages[i]
}

// shown notes that page i is on screen and next is the cursor of the page
// after it (0: none).
func (p *pager) shown(i int, next uint64) {
	p.at = i
	if i == len(p.pages)-1 && next != 0 {
		p.pages = append(p.pages, next)
	}
}

// newer and older are the pages before and after the one shown, or -1.
func (p *pager) newer() int {
	if p.at > 0 {
		return p.at - 1
	}
	return -1
}

func (p *pager) older() int {
	if p.at+1 < len(p.pages) {
		return p.at + 1
	}
	return -1
}
