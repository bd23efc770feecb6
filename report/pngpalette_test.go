package report

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// chartLike is a white image with flat bars and a line whose edges are
// blended into the background, as an anti-aliased chart's are: a few flat
// colours and many rare blends.
func chartLike(t testing.TB) ([]byte, *image.NRGBA) {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 640, 480))
	blue := color.NRGBA{31, 119, 180, 255}
	for y := 0; y < 480; y++ {
		for x := 0; x < 640; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			if x%80 < 50 && y > 480-(x/80+1)*50 {
				c = blue
			}
			// a diagonal line blended by distance, its shade drifting: hundreds of colours
			if d := (x*3/4 - y + 600) % 600; d < 4 {
				a := uint8(255 - d*60)
				c = color.NRGBA{uint8((214*int(a) + int(c.R)*(255-int(a))) / 255), uint8((39*int(a) + int(c.G)*(255-int(a))) / 255),
					uint8((40*int(a)+int(c.B)*(255-int(a)))/255 + x%97), 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), img
}

// A chart is shown in at most 256 colours, its flat colours exact, the
// same size in pixels, in fewer bytes, the same bytes each time.
func TestPalettedPNG(t *testing.T) {
	raw, src := chartLike(t)
	colours := map[color.NRGBA]bool{}
	for i := 0; i < len(src.Pix); i += 4 {
		colours[color.NRGBA{src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3]}] = true
	}
	if len(colours) <= paletteColours {
		t.Fatalf("the test image has %d colours; it should need more than a palette holds", len(colours))
	}
	small := palettedPNG(raw)
	if len(small) >= len(raw) {
		t.Fatalf("paletted PNG is %d bytes, the original %d", len(small), len(raw))
	}
	if again := palettedPNG(raw); !bytes.Equal(again, small) {
		t.Fatal("two encodings of one chart differ")
	}
	img, err := png.Decode(bytes.NewReader(small))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := img.(*image.Paletted)
	if !ok || len(p.Palette) > paletteColours || p.Bounds() != src.Bounds() {
		t.Fatalf("decoded %T, bounds %v; want a paletted image of %v", img, img.Bounds(), src.Bounds())
	}
	for _, pt := range []image.Point{{0, 0}, {10, 470}, {639, 0}} {
		want := src.NRGBAAt(pt.X, pt.Y)
		if got := color.NRGBAModel.Convert(p.At(pt.X, pt.Y)); got != want {
			t.Errorf("pixel %v is %v, want %v (a flat colour is kept exactly)", pt, got, want)
		}
	}
	t.Logf("%d colours, %d bytes -> %d bytes", len(colours), len(raw), len(small))
}

// What cannot be made smaller, or is not a PNG, is shown as it is.
func TestPalettedPNGKeepsWhatItCannotShrink(t *testing.T) {
	img := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.White, color.Black})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string][]byte{"paletted": buf.Bytes(), "not a PNG": []byte("GIF89a")} {
		if got := palettedPNG(raw); !bytes.Equal(got, raw) {
			t.Errorf("%s: re-encoded to %d bytes", name, len(got))
		}
	}
}

// The time a chart takes to be paletted (docs/benchmarks.md).
func BenchmarkPalettedPNG(b *testing.B) {
	raw, _ := chartLike(b)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		palettedPNG(raw)
	}
}
