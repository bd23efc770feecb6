package eda

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"testing"
	"time"
)

// writeXLS writes a minimal Excel 97-2003 workbook (BIFF8 in an OLE2
// compound file) with one sheet: a header row, then rows of float64 (NaN:
// an empty cell), string or time.Time (a date cell). Nothing in Debian
// writes .xls, so the test builds the bytes itself, record by record, as
// [MS-XLS] and [MS-CFB] lay them out.
func writeXLS(t *testing.T, path, sheet string, header []string, rows [][]any) {
	t.Helper()
	rec := func(b *bytes.Buffer, typ uint16, data []byte) {
		binary.Write(b, binary.LittleEndian, typ)
		binary.Write(b, binary.LittleEndian, uint16(len(data)))
		b.Write(data)
	}
	le := func(vs ...any) []byte {
		var b bytes.Buffer
		for _, v := range vs {
			binary.Write(&b, binary.LittleEndian, v)
		}
		return b.Bytes()
	}
	bof := func(kind uint16) []byte {
		return le(uint16(0x0600), kind, uint16(0x0DBB), uint16(0x07CC), uint32(0), uint32(6))
	}
	// XF: font, format, type/parent, alignment..., 20 bytes. XF 0 is General,
	// XF 1 the built-in date format 14 (m/d/yy).
	xf := func(format uint16) []byte {
		return le(uint16(0), format, uint16(0), uint8(0x20), uint8(0), uint8(0), uint8(0), uint32(0), uint32(0), uint16(0x20C0))
	}

	var sheetStream bytes.Buffer
	rec(&sheetStream, 0x0809, bof(0x0010))
	rec(&sheetStream, 0x0200, le(uint32(0), uint32(len(rows)+1), uint16(0), uint16(len(header)), uint16(0)))
	label := func(r, c int, s string) {
		rec(&sheetStream, 0x0204, append(le(uint16(r), uint16(c), uint16(0), uint16(len(s)), uint8(0)), s...))
	}
	for c, h := range header {
		label(0, c, h)
	}
	excelEpoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	for r, row := range rows {
		for c, v := range row {
			switch v := v.(type) {
			case string:
				label(r+1, c, v)
			case float64:
				if !math.IsNaN(v) {
					rec(&sheetStream, 0x0203, le(uint16(r+1), uint16(c), uint16(0), v))
				}
			case time.Time:
				rec(&sheetStream, 0x0203, le(uint16(r+1), uint16(c), uint16(1), v.Sub(excelEpoch).Hours()/24))
			}
		}
	}
	rec(&sheetStream, 0x000A, nil)

	globals := func(sheetPos uint32) []byte {
		var g bytes.Buffer
		rec(&g, 0x0809, bof(0x0005))
		rec(&g, 0x0042, le(uint16(1200))) // CODEPAGE: UTF-16
		rec(&g, 0x0022, le(uint16(0)))    // DATEMODE: 1900
		rec(&g, 0x00E0, xf(0))
		rec(&g, 0x00E0, xf(14))
		rec(&g, 0x0085, append(le(sheetPos, uint8(0), uint8(0), uint8(len(sheet)), uint8(0)), sheet...))
		rec(&g, 0x000A, nil)
		return g.Bytes()
	}
	g := globals(0)
	book := append(globals(uint32(len(g))), sheetStream.Bytes()...)
	// Streams under 4096 bytes would live in the mini stream; pad past it.
	const sector = 512
	size := max(4096, (len(book)+sector-1)/sector*sector)
	book = append(book, make([]byte, size-len(book))...)
	nBook := size / sector

	// Sectors: 0 the FAT, 1 the directory, 2.. the Workbook stream.
	const free, endOfChain, fatSect = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
	if 2+nBook > sector/4 {
		t.Fatal("writeXLS: the workbook needs more than one FAT sector")
	}
	fat := make([]uint32, sector/4)
	for i := range fat {
		fat[i] = free
	}
	fat[0], fat[1] = fatSect, endOfChain
	for i := range nBook {
		fat[2+i] = uint32(3 + i)
	}
	fat[2+nBook-1] = endOfChain

	entry := func(name string, typ uint8, child int32, start uint32, size uint32) []byte {
		e := make([]byte, 128)
		for i, r := range name {
			binary.LittleEndian.PutUint16(e[2*i:], uint16(r))
		}
		binary.LittleEndian.PutUint16(e[64:], uint16(2*len(name)+2))
		e[66], e[67] = typ, 1 // black
		binary.LittleEndian.PutUint32(e[68:], free)
		binary.LittleEndian.PutUint32(e[72:], free)
		binary.LittleEndian.PutUint32(e[76:], uint32(child))
		binary.LittleEndian.PutUint32(e[116:], start)
		binary.LittleEndian.PutUint32(e[120:], size)
		return e
	}
	var dir bytes.Buffer
	dir.Write(entry("Root Entry", 5, 1, endOfChain, 0))
	dir.Write(entry("Workbook", 2, -1, 2, uint32(size)))
	for range 2 {
		e := entry("", 0, -1, 0, 0)
		binary.LittleEndian.PutUint16(e[64:], 0)
		dir.Write(e)
	}

	header512 := make([]byte, sector)
	copy(header512, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
	binary.LittleEndian.PutUint16(header512[24:], 0x003E)
	binary.LittleEndian.PutUint16(header512[26:], 3)
	binary.LittleEndian.PutUint16(header512[28:], 0xFFFE)
	binary.LittleEndian.PutUint16(header512[30:], 9)
	binary.LittleEndian.PutUint16(header512[32:], 6)
	binary.LittleEndian.PutUint32(header512[44:], 1) // FAT sectors
	binary.LittleEndian.PutUint32(header512[48:], 1) // first directory sector
	binary.LittleEndian.PutUint32(header512[56:], 4096)
	binary.LittleEndian.PutUint32(header512[60:], endOfChain) // no mini FAT
	binary.LittleEndian.PutUint32(header512[68:], endOfChain) // no DIFAT sectors
	for i := range 109 {
		binary.LittleEndian.PutUint32(header512[76+4*i:], free)
	}
	binary.LittleEndian.PutUint32(header512[76:], 0) // the FAT is sector 0

	var file bytes.Buffer
	file.Write(header512)
	binary.Write(&file, binary.LittleEndian, fat)
	file.Write(dir.Bytes())
	file.Write(book)
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
