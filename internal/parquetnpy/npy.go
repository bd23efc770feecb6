package parquetnpy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// writeNPY writes a one-dimensional array in NumPy's .npy format (version
// 1.0, little endian), which np.load reads without pickle. descr is the
// array's dtype ("<i8", "<f8", "|b1", "<i4"); put appends one element.
func writeNPY[T any](path, descr string, values []T, put func([]byte, T) []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, len(values))
	// The magic, version and length take 10 bytes; the header ends with a
	// newline and pads the whole preamble to a multiple of 64 bytes.
	pad := 64 - (10+len(header)+1)%64
	if pad == 64 {
		pad = 0
	}
	for range pad {
		header += " "
	}
	header += "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	buf := make([]byte, 0, 8)
	for _, v := range values {
		if _, err := w.Write(put(buf[:0], v)); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func putInt64(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }
func putInt32(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
func putFloat64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
func putBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}
func putFloat32(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
}
