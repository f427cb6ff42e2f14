package storage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestBadgerLogger(t *testing.T) {
	var out bytes.Buffer
	l := badgerLogger{zerolog.New(&out)}
	l.Infof("compaction %d\n", 1)
	l.Debugf("flush\n")
	l.Warningf("value log %s\n", "truncated")
	l.Errorf("disk %s\n", "full")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		`{"level":"warn","component":"badger","message":"value log truncated"}`,
		`{"level":"error","component":"badger","message":"disk full"}`,
	}
	if len(lines) != len(want) || lines[0] != want[0] || lines[1] != want[1] {
		t.Fatalf("badger logs:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}
}
