// Command starfortune sells and plays Star Fortune, the instant lottery game
// of the règlement of 28 March 2012: without a subcommand it opens the kiosk
// window; its subcommands serve support staff, scripts and auditors and never
// need a display. The command line is package cli; this file builds the log.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"
	"gopkg.in/natefinch/lumberjack.v2"

	"starfortune/cli"
	"starfortune/internal/fsync"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Program{Stdout: os.Stdout, Stderr: os.Stderr, OpenLog: openLog}))
}

// openLog writes JSON lines to a rotated file in the data directory, and a
// human console copy to stderr when STARFORTUNE_DEV is set.
func openLog(dir string) (zerolog.Logger, func(), error) {
	if err := fsync.MkdirAll(filepath.Join(dir, "logs"), 0o750); err != nil { // the data directory's first use
		return zerolog.Nop(), nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	file := &lumberjack.Logger{Filename: filepath.Join(dir, "logs", "starfortune.log"), MaxSize: 20, MaxBackups: 10, Compress: true}
	var w io.Writer = file
	if os.Getenv("STARFORTUNE_DEV") != "" {
		w = zerolog.MultiLevelWriter(file, zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: time.TimeOnly})
	}
	return zerolog.New(w).With().Timestamp().Logger(), func() { file.Close() }, nil
}
