package meminfo

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in, err := Parse(strings.NewReader("MemTotal:       24684084 kB\nMemFree:        18117028 kB\nMemAvailable:   23996048 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Total != 24684084<<10 || in.Available != 23996048<<10 {
		t.Errorf("got %+v", in)
	}
	if _, err := Parse(strings.NewReader("MemFree: 1 kB\n")); err == nil {
		t.Error("no MemTotal: want an error")
	}
}

func TestReadThisHost(t *testing.T) {
	in, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	if in.Total < 256<<20 || in.Available > in.Total {
		t.Errorf("implausible: %+v", in)
	}
}
