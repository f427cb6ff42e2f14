// Command soundcard is the sound card of `make bench`: it makes DIR a home
// directory whose ALSA default device plays into a pipe that it drains at a
// real card's pace (sound/alsafile), for each program started with
// HOME=DIR in turn, until it is killed. What is played is discarded.
//
// Usage: soundcard DIR
package main

import (
	"fmt"
	"os"
	"time"

	"starfortune/sound"
	"starfortune/sound/alsafile"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: soundcard DIR")
		os.Exit(2)
	}
	for {
		c, err := alsafile.New(os.Args[1], sound.Rate)
		if err != nil {
			fmt.Fprintln(os.Stderr, "soundcard:", err)
			os.Exit(1)
		}
		c.Discard = true
		c.Start()
		if _, err := c.Stop(24 * time.Hour); err != nil { // returns when the player closes the device
			fmt.Fprintln(os.Stderr, "soundcard:", err)
			os.Exit(1)
		}
	}
}
