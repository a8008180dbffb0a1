package main

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var updateDemoPNGs = flag.Bool("update-demo-pngs", false, "rewrite docs/report-demo*.png from a fresh demo's report (needs chromium and a CJK font, fonts-wqy-microhei)")

// demoPNGs are docs/report.md's pictures of the demo's report: the file,
// the report's language and the window it is taken in.
var demoPNGs = []struct {
	file, lang string
	w, h       int
}{
	{"report-demo.png", "en", 1000, 1250},
	{"report-demo-narrow.png", "en", 390, 1400},
	{"report-demo-zh.png", "zh", 1000, 1250},
}

// TestDemoPNGs: docs/report.md's pictures of the demo's report are PNGs of
// the windows they say. With -update-demo-pngs it runs the demo, writes its
// report in Chinese too and takes the pictures again with headless
// Chromium (issue 36: report-demo.png showed an older report):
//
//	go test ./cmd/benchseal -run TestDemoPNGs -update-demo-pngs
func TestDemoPNGs(t *testing.T) {
	if *updateDemoPNGs {
		regenerateDemoPNGs(t)
	}
	for _, p := range demoPNGs {
		f, err := os.Open(filepath.Join("../../docs", p.file))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p.file, err)
		}
		if b := img.Bounds(); b.Dx() != p.w || b.Dy() != p.h {
			t.Errorf("%s is %dx%d, want the %dx%d window", p.file, b.Dx(), b.Dy(), p.w, p.h)
		}
	}
}

func regenerateDemoPNGs(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Fatal("-update-demo-pngs needs chromium (Debian: apt-get install chromium fonts-wqy-microhei)")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "demo")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"demo", "--out", out}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("demo: exit %d\n%s", code, stderr.String())
	}
	zh := filepath.Join(dir, "zh")
	if code := run([]string{"report", filepath.Join(out, "evidence.tar.zst"), "--lang", "zh", "-o", zh}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("report --lang zh: exit %d\n%s", code, stderr.String())
	}
	pages := map[string]string{"en": filepath.Join(out, "report", "report.html"), "zh": filepath.Join(zh, "report.html")}
	for _, p := range demoPNGs {
		shot := filepath.Join(dir, p.file)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
			"--user-data-dir="+filepath.Join(dir, "profile"), "--force-device-scale-factor=1",
			"--window-size="+strconv.Itoa(p.w)+","+strconv.Itoa(p.h), "--screenshot="+shot, "file://"+pages[p.lang])
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, b)
		}
		png, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("../../docs", p.file), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
