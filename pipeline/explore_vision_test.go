package pipeline_test

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/llm/llmtest"
	"github.com/analyst-cli/analyst/nbformat"
	"github.com/analyst-cli/analyst/pipeline"
)

// The exploration with a model that has vision (Ollama: /api/show reports
// it): each goal's reflection request carries the goal's chart as an
// image, the very PNG the notebook stores for the cell that drew it, with
// the goal's question, and not its description.
func TestExploreVisionOllama(t *testing.T) {
	f, res := runExploration(t, "ollama", true)
	checkExploration(t, f, res, true)
}

// The same over OpenAI's wire format: the image is a data URL in an
// image_url part of the user message.
func TestExploreVisionOpenAI(t *testing.T) {
	f, res := runExploration(t, "openai", true)
	checkExploration(t, f, res, true)
}

// runExploration runs exploreScript's exploration (3 goals asked) with a
// model of provider that has vision or not.
func runExploration(t *testing.T, provider string, vision bool) (*fakeModel, *pipeline.Result) {
	dir := t.TempDir()
	data := salesCSV(t, dir, 400)
	f := newFakeModel(t, provider, exploreScript()...)
	if vision {
		f.Caps = `["completion","tools","vision"]`
	}
	opts := options(t, data, filepath.Join(dir, "out"))
	opts.Model, opts.ModelSpec, opts.Goals = f.Client(t, vision), f.Spec(), 3
	return f, run(t, opts)
}

// checkReflectionSent checks, on what the model server received, the
// reflection request of each goal: it holds the goal's question and, with
// vision, exactly the goal's chart as an image (bytes equal to the PNG of
// the goal's last chart cell in the notebook) and no description; without
// vision no image and the chart's description. No request carries an
// image the model has already answered.
func checkReflectionSent(t *testing.T, f *fakeModel, res *pipeline.Result, vision bool) {
	t.Helper()
	nb, err := nbformat.ReadFile(res.Files.Notebook)
	if err != nil {
		t.Fatal(err)
	}
	questions := []string{"Which region brings the most revenue?", "Which product sells the most units?"}
	titles := []string{"Revenue by region", "Units sold by product"}
	for i, q := range questions {
		want := goalChartPNG(t, nb, pipeline.PhaseGoal(i+1))
		var found int
		for r := range f.Requests() {
			msgs := f.Messages(t, r)
			last := msgs[len(msgs)-1]
			text := llmtest.ContentText(last["content"])
			if last["role"] != "user" || !strings.HasPrefix(text, "Check your work before it is reported.") || !strings.Contains(text, q) {
				continue
			}
			found++
			if strings.Contains(text, `"(no title)"`) {
				t.Errorf("goal %d: reflection shows the chart the checks rejected and the model redrew:\n%s", i+1, text)
			}
			imgs := sentImages(t, f.Provider, last)
			if !vision {
				if len(imgs) != 0 || !strings.Contains(text, "description: {") || !strings.Contains(text, titles[i]) {
					t.Errorf("goal %d: reflection without vision sent %d images, text:\n%s", i+1, len(imgs), text)
				}
				continue
			}
			if len(imgs) != 1 || !bytes.Equal(imgs[0], want) {
				t.Errorf("goal %d: the reflection request carries %d images; want 1, the goal's chart (%d bytes in the notebook); text:\n%s",
					i+1, len(imgs), len(want), text)
			}
			if strings.Contains(text, "description:") {
				t.Errorf("goal %d: a vision model was sent the chart's description in reflection:\n%s", i+1, text)
			}
		}
		if found != 1 {
			t.Errorf("goal %d: %d reflection requests hold its question, want 1", i+1, found)
		}
	}
	// Images ride only on the newest user messages: none the model has
	// answered is sent again.
	for r := range f.Requests() {
		msgs := f.Messages(t, r)
		lastAssistant := -1
		for j, m := range msgs {
			if m["role"] == "assistant" {
				lastAssistant = j
			}
		}
		for j, m := range msgs {
			if n := len(sentImages(t, f.Provider, m)); n > 0 && (j < lastAssistant || !vision) {
				t.Errorf("request %d message %d (%v) carries %d images (vision %v, last assistant message %d)", r, j, m["role"], n, vision, lastAssistant)
			}
		}
	}
}

// goalChartPNG is the PNG of the last chart that the successful cells of a
// goal's phase (not its reflection) drew, as the notebook stores it.
func goalChartPNG(t *testing.T, nb *nbformat.Notebook, phase string) []byte {
	t.Helper()
	var png []byte
	for _, c := range nb.Cells {
		if !c.HasTag(phase) || !c.HasTag(nbformat.TagModel) || c.HasTag(nbformat.TagFailedAttempt) {
			continue
		}
		for _, o := range c.Outputs {
			if s, ok := o.DataString(nbformat.MimePNG); ok {
				b, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					t.Fatalf("cell %s: PNG is not base64: %v", c.ID, err)
				}
				png = b
			}
		}
	}
	if len(png) == 0 {
		t.Fatalf("no chart in the notebook's cells of %s", phase)
	}
	return png
}

// sentImages are the images of a message as sent: Ollama's "images"
// (base64), or OpenAI's image_url parts (PNG data URLs), decoded.
func sentImages(t *testing.T, provider string, msg map[string]any) [][]byte {
	t.Helper()
	var enc []string
	if provider == "ollama" {
		for _, s := range llmtest.AsList(msg["images"]) {
			enc = append(enc, s.(string))
		}
	} else {
		for _, p := range llmtest.AsList(msg["content"]) {
			part := p.(map[string]any)
			if part["type"] != "image_url" {
				continue
			}
			url := part["image_url"].(map[string]any)["url"].(string)
			data, ok := strings.CutPrefix(url, "data:image/png;base64,")
			if !ok {
				t.Errorf("image URL is not a PNG data URL: %.60s", url)
			}
			enc = append(enc, data)
		}
	}
	var out [][]byte
	for _, s := range enc {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("image is not base64: %v", err)
		}
		out = append(out, b)
	}
	return out
}
