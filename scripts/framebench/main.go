// Command framebench measures what the real window (Fyne's OpenGL driver;
// Mesa's software GL under Xvfb in `make bench`) spends on one animation
// frame: with -board, the game's board while pucks fall down it one after
// another; without, a window of the same size where one rectangle moves
// (the baseline: what any animated Fyne frame costs here).
//
// Fyne's loop runs on the main thread: each 1/60 s it ticks the animations,
// then paints. A probe animation reads that thread's CPU time at every tick:
// the difference is one frame's work, ticks and painting (run it with
// LP_NUM_THREADS=0 so that Mesa rasterizes on that thread too). Unlike a
// wall-clock time it does not count waiting for a shared core. After -warm
// frames it prints
//
//	frames=<n> frame_p50_us=<n> frame_p95_us=<n> interval_p50_us=<n>
//
// Usage: framebench [-board] [-size 800x700] [-frames 300] [-warm 60]
package main

import (
	"flag"
	"fmt"
	"image/color"
	"os"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"

	"golang.org/x/sys/unix"

	"starfortune/engine"
	"starfortune/ui"
)

func main() {
	board := flag.Bool("board", false, "animate the game's board (else a moving rectangle, the baseline)")
	frames := flag.Int("frames", 300, "frames to measure")
	warm := flag.Int("warm", 60, "frames to skip first (textures, caches)")
	size := flag.String("size", "800x700", "window size, WIDTHxHEIGHT (1080x1920: a portrait kiosk, the board across its width)")
	flag.Parse()
	var width, height float32
	if _, err := fmt.Sscanf(*size, "%gx%g", &width, &height); err != nil || width < 100 || height < 100 {
		fmt.Fprintf(os.Stderr, "framebench: -size %q: want WIDTHxHEIGHT\n", *size)
		os.Exit(2)
	}

	a := app.NewWithID("fr.starfortune.framebench")
	w := a.NewWindow("Frame bench")
	w.Resize(fyne.NewSize(width, height))
	var animate func()
	if *board {
		b := ui.NewBoard(100)
		w.SetContent(b)
		var fall func(n int)
		fall = func(n int) { // every destination in turn, from the three slots
			dest := engine.Destination{Index: n % engine.NumSpots}
			slot := n % engine.NumSlots
			path, err := engine.PlanPath(dest, slot, engine.PathSeed(1, uint32(n), 0, slot))
			if err != nil {
				fmt.Fprintln(os.Stderr, "framebench:", err)
				os.Exit(1)
			}
			b.Drop(0, path, 1, func() { fall(n + 1) })
		}
		animate = func() { fall(0) }
	} else {
		r := canvas.NewRectangle(color.NRGBA{R: 0xff, G: 0xc8, B: 0x3d, A: 0xff})
		r.Resize(fyne.NewSize(40, 40))
		dx, dy := width-100, height-100
		bg := canvas.NewRectangle(color.NRGBA{R: 0x07, G: 0x09, B: 0x22, A: 0xff})
		w.SetContent(container.NewStack(bg, container.NewWithoutLayout(r)))
		move := fyne.NewAnimation(2*time.Second, func(f float32) { r.Move(fyne.NewPos(20+dx*f, 20+dy*f)) })
		move.RepeatCount = fyne.AnimationRepeatForever
		animate = move.Start
	}

	var render, interval []time.Duration
	var last time.Time
	var lastCPU time.Duration
	seen := 0
	probe := fyne.NewAnimation(time.Hour, func(float32) {
		tick, cpu := time.Now(), threadCPU()
		seen++
		if seen > *warm {
			interval = append(interval, tick.Sub(last))
			render = append(render, cpu-lastCPU)
			if len(render) == *frames {
				report(render, interval)
				a.Quit()
			}
		}
		last, lastCPU = tick, cpu
	})
	a.Lifecycle().SetOnStarted(func() {
		animate()
		probe.Start()
	})
	w.ShowAndRun()
}

// threadCPU is the CPU time of the calling thread. Fyne runs its loop on
// the main thread, locked: called from an animation it is the UI thread's.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		fmt.Fprintln(os.Stderr, "framebench:", err)
		os.Exit(1)
	}
	return time.Duration(ts.Nano())
}

func report(render, interval []time.Duration) {
	p := func(d []time.Duration, q float64) int64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[int(q*float64(len(s)-1))].Microseconds()
	}
	fmt.Printf("frames=%d frame_p50_us=%d frame_p95_us=%d interval_p50_us=%d\n",
		len(render), p(render, 0.5), p(render, 0.95), p(interval, 0.5))
}
