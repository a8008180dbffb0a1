package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var shots = flag.String("shots", "", "also write the fixture's screenshots (report-wide.png, report-narrow.png) into this folder")

// chromium is the headless browser the layout tests use, "" when absent.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// runChromium runs headless Chromium on file with a window of w×h CSS
// pixels and returns its stdout.
func runChromium(t *testing.T, bin, file string, w, h int, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bin, append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--force-device-scale-factor=1",
		"--window-size=" + strconv.Itoa(w) + "," + strconv.Itoa(h),
	}, append(args, "file://"+file)...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Dir = dir
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, errb.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("chromium did not finish in 90 s\n%s", errb.String())
	}
	return out.Bytes()
}

// layoutScript measures, after layout, every drawn element of every chart
// against its chart's box, and the page against the window, and writes
// what overflows into <pre id="layout"> as a JSON list.
const layoutScript = `<script>
(function(){
  const out = [];
  document.querySelectorAll('svg').forEach(function(svg, i){
    const s = svg.getBoundingClientRect();
    if (s.width < 10 || s.height < 10) out.push('chart ' + i + ' is not drawn');
    if (s.right > window.innerWidth + 1) out.push('chart ' + i + ' is wider than the window: ' + Math.round(s.right) + ' > ' + window.innerWidth);
    svg.querySelectorAll('text,path,circle,rect,line').forEach(function(el){
      const b = el.getBoundingClientRect();
      if (b.width === 0 && b.height === 0) return;
      if (b.left < s.left - 1 || b.top < s.top - 1 || b.right > s.right + 1 || b.bottom > s.bottom + 1)
        out.push('chart ' + i + ': <' + el.tagName + '> ' + (el.textContent || '').trim().slice(0, 40) + ' overflows: ' +
          [b.left - s.left, b.top - s.top, b.right - s.left, b.bottom - s.top].map(Math.round).join(',') + ' in ' + Math.round(s.width) + 'x' + Math.round(s.height));
    });
  });
  const d = document.documentElement;
  if (d.scrollWidth > window.innerWidth + 1) out.push('the page is wider than the window: ' + d.scrollWidth + ' > ' + window.innerWidth);
  const pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
`

// TestBrowserLayout renders the fixture's HTML (with server stages, so
// that every chart and table is there) and the sim run's (per-request
// percentiles, the widest table) in headless Chromium, wide and
// narrow: the screenshots are not blank, no chart element leaves its
// chart, and the page never scrolls sideways (wide tables scroll inside
// their own box). Skipped without Chromium.
func TestBrowserLayout(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("chromium not installed (Debian: apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	for _, tc := range []struct {
		fixture, lang string
		in            Input
	}{{"", "en", fixtureStages()}, {"", "zh", fixtureStages()}, {"simrun/", "en", simRun(t)}, {"simrun/", "zh", simRun(t)}} {
		in, lang := tc.in, tc.lang
		in.Lang = lang
		var page bytes.Buffer
		if err := HTML(&page, in); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "report.html")
		if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		measured := filepath.Join(dir, "measured.html")
		if err := os.WriteFile(measured, bytes.Replace(page.Bytes(), []byte("</body>"), []byte(layoutScript+"</body>"), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, size := range []struct {
			name string
			w, h int
		}{{"wide", 1100, 1500}, {"narrow", 400, 1500}} {
			t.Run(tc.fixture+lang+"/"+size.name, func(t *testing.T) {
				dom := string(runChromium(t, bin, measured, size.w, size.h, "--dump-dom", "--virtual-time-budget=3000"))
				i := strings.Index(dom, `<pre id="layout">`)
				if i < 0 {
					t.Fatalf("the layout script did not run:\n%.500s", dom)
				}
				raw := dom[i+len(`<pre id="layout">`):]
				raw = html.UnescapeString(raw[:strings.Index(raw, "</pre>")])
				var problems []string
				if err := json.Unmarshal([]byte(raw), &problems); err != nil {
					t.Fatalf("%v: %s", err, raw)
				}
				for _, p := range problems {
					t.Error(p)
				}
				png := filepath.Join(t.TempDir(), "shot.png")
				runChromium(t, bin, file, size.w, size.h, "--screenshot="+png)
				notBlank(t, png)
				if *shots != "" && lang == "en" && tc.fixture == "" {
					b, _ := os.ReadFile(png)
					if err := os.WriteFile(filepath.Join(*shots, "report-"+size.name+".png"), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	}
}

// notBlank fails unless the PNG has ink (non-white pixels) over a fair
// share of it and many colours: a page that failed to render is white, or
// one colour.
func notBlank(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	ink, total := 0, 0
	colours := map[[3]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			total++
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				ink++
			}
			if len(colours) < 1000 {
				colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			}
		}
	}
	if share := float64(ink) / float64(total); share < 0.03 || len(colours) < 20 {
		t.Errorf("%s looks blank: %.1f %% ink, %d colours (%v)", file, 100*share, len(colours), image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	}
}
