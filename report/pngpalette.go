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
	pal := frequentColours(img)
	b := img.Bounds()
	out := image.NewPaletted(b, pal)
	nearest := map[color.NRGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			i, ok := nearest[c]
			if !ok {
				i = uint8(pal.Index(c))
				nearest[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, out); err != nil || buf.Len() >= len(raw) {
		return raw
	}
	return buf.Bytes()
}

// frequentColours is img's paletteColours most frequent colours, most
// frequent first (ties in colour order, so the page is the same bytes
// each time).
func frequentColours(img image.Image) color.Palette {
	counts := map[color.NRGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	cs := make([]color.NRGBA, 0, len(counts))
	for c := range counts {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b color.NRGBA) int {
		if n := cmp.Compare(counts[b], counts[a]); n != 0 {
			return n
		}
		return cmp.Compare(rgbaKey(a), rgbaKey(b))
	})
	if len(cs) > paletteColours {
		cs = cs[:paletteColours]
	}
	pal := make(color.Palette, len(cs))
	for i, c := range cs {
		pal[i] = c
	}
	return pal
}

func rgbaKey(c color.NRGBA) uint32 {
	return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A)
}
