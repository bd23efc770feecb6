package report

import (
	"bytes"
	"cmp"
	"image"
	"image/color"
	"image/png"
	"slices"
)

// A chart drawn by matplotlib is a 32-bit RGBA PNG of a few hundred
// colours (its lines and fills, and their anti-aliased edges). The page
// shows it as a PNG of at most 256 colours: the most frequent ones, each
// other pixel drawn in the nearest of them, which looks the same and
// takes about a third of the bytes (the charts were about 0.75 MB of a
// 100,000-row report's 1.4 MB). The notebook and the chart files keep
// the kernel's bytes, which verify and Jupyter's re-run compare; the page
// is a rendering of them, the same bytes each time.

// paletteColours is the most colours a paletted PNG holds.
const paletteColours = 256

// maxPalettePixels bounds the images re-encoded: past it (an image few
// charts reach) the kernel's bytes are shown as they are, so that a page
// of huge images costs no more time than before.
const maxPalettePixels = 16 << 20

// palettedPNG returns raw re-encoded with a palette of its most frequent
// colours when that is smaller, else raw.
func palettedPNG(raw []byte) []byte {
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width*cfg.Height > maxPalettePixels {
		return raw
	}
	if _, ok := cfg.ColorModel.(color.Palette); ok {
		return raw
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return raw
	}
	src := toNRGBA(img)
	pal, index := frequentColours(src)
	out := image.NewPaletted(src.Rect, pal)
	// Runs of one colour are the most of a chart: each pixel like the one
	// before it takes that one's index without a look-up.
	last, lastIndex := uint32(0), uint8(0)
	for i, o := 0, 0; i < len(src.Pix); i, o = i+4, o+1 {
		k := pixelKey(src.Pix[i:])
		if i == 0 || k != last {
			n, ok := index[k]
			if !ok {
				n = uint8(pal.Index(keyColour(k)))
				index[k] = n
			}
			last, lastIndex = k, n
		}
		out.Pix[o] = lastIndex
	}
	// Best compression saves a tenth more bytes at three times the time.
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&buf, out); err != nil || buf.Len() >= len(raw) {
		return raw
	}
	return buf.Bytes()
}

// toNRGBA is img as non-premultiplied RGBA with its rows packed (what
// Go's decoder gives for matplotlib's PNGs, converted otherwise).
func toNRGBA(img image.Image) *image.NRGBA {
	b := img.Bounds()
	if n, ok := img.(*image.NRGBA); ok && n.Stride == 4*b.Dx() {
		return n
	}
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			n.SetNRGBA(x-b.Min.X, y-b.Min.Y, color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA))
		}
	}
	return n
}

// frequentColours is img's paletteColours most frequent colours, most
// frequent first (ties in colour order, so the page is the same bytes
// each time), and each one's index in it.
func frequentColours(img *image.NRGBA) (color.Palette, map[uint32]uint8) {
	counts := map[uint32]int{}
	for i := 0; i < len(img.Pix); i += 4 {
		counts[pixelKey(img.Pix[i:])]++
	}
	keys := make([]uint32, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b uint32) int {
		if n := cmp.Compare(counts[b], counts[a]); n != 0 {
			return n
		}
		return cmp.Compare(a, b)
	})
	if len(keys) > paletteColours {
		keys = keys[:paletteColours]
	}
	pal := make(color.Palette, len(keys))
	index := make(map[uint32]uint8, len(keys))
	for i, k := range keys {
		pal[i] = keyColour(k)
		index[k] = uint8(i)
	}
	return pal, index
}

// pixelKey is the NRGBA pixel at the start of pix as one number.
func pixelKey(pix []uint8) uint32 {
	return uint32(pix[0])<<24 | uint32(pix[1])<<16 | uint32(pix[2])<<8 | uint32(pix[3])
}

func keyColour(k uint32) color.NRGBA {
	return color.NRGBA{uint8(k >> 24), uint8(k >> 16), uint8(k >> 8), uint8(k)}
}
