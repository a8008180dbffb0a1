package bench

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchseal/benchseal/internal/sim"
)

// A target whose server goes away mid-step stops being measured: its step
// ends early, its later steps are skipped, the other target runs every
// step, the run is incomplete with a server_exited event, and what was
// measured is kept and summed up in claims.json.
func TestTargetStop(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.5)
	b := simServer(t, sim.Config{Corpus: sc, BaseLatency: 5 * time.Millisecond})
	s, err := sim.New(sim.Config{Corpus: sc, BaseLatency: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	gone := make(chan struct{})
	var once sync.Once
	var served int
	var mu sync.Mutex
	var a *httptest.Server
	a = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/audio/transcriptions" {
			mu.Lock()
			served++
			n := served
			mu.Unlock()
			if n == 10 {
				// The server dies: this and every later request fail.
				once.Do(func() { close(gone); go a.CloseClientConnections() })
				panic(http.ErrAbortHandler)
			}
			if n > 10 {
				panic(http.ErrAbortHandler)
			}
		}
		s.ServeHTTP(w, r)
	}))
	defer a.Close()
	p := Plan{Targets: []Target{{Name: "a", URL: a.URL}, {Name: "b", URL: b.URL}},
		Corpus: clips, Levels: []int{2, 3}, Requests: []int{40}, Repeats: 2, Seed: 7}
	dir, res, err := runPlan(t, p, WithTargetStop("a", gone, func() string { return "exit status 3" }))
	var se *TargetStoppedError
	if !errors.As(err, &se) || se.Targets["a"] != "exit status 3" || len(se.Targets) != 1 {
		t.Fatalf("err = %v, want a *TargetStoppedError for a", err)
	}
	if res == nil {
		t.Fatal("no result")
	}
	l := loadRun(t, dir)
	if l.run.Complete || !strings.Contains(l.run.Incomplete, "server a exited during the run (exit status 3)") {
		t.Errorf("run.json complete %v incomplete %q", l.run.Complete, l.run.Incomplete)
	}
	events := 0
	for _, e := range l.run.Events {
		if e.Kind == "server_exited" && e.Target == "a" {
			events++
		}
	}
	if events != 1 {
		t.Errorf("%d server_exited events, want 1: %+v", events, l.run.Events)
	}
	// a ran only its first step, cut short; b ran all four.
	if _, err := os.Stat(filepath.Join(dir, "records/a/c2-r2.jsonl")); err == nil {
		t.Error("a's second step ran after its server was gone")
	}
	ra := l.files["records/a/c2-r1.jsonl"]
	if len(ra) == 0 || len(ra) >= 42 {
		t.Errorf("a's first step has %d records, want some but not all 42", len(ra))
	}
	for _, name := range []string{"c2-r1", "c2-r2", "c3-r1", "c3-r2"} {
		if n := len(l.files["records/b/"+name+".jsonl"]); n != 40+map[byte]int{'2': 2, '3': 3}[name[1]] {
			t.Errorf("b %s: %d records", name, n)
		}
	}
	if len(l.claims.Targets) != 2 || len(l.claims.Targets[0].Levels) != 1 || len(l.claims.Targets[1].Levels) != 2 {
		t.Errorf("claims: %+v", l.claims.Targets)
	}
}

// TestTargetStopNumbering: the variants the other target sends after one
// stopped are numbered as if every planned step had run (the rule of
// doc.go, re-derived here from run.json as a verifier does), so that
// the numbering does not depend on when a server went away.
func TestTargetStopNumbering(t *testing.T) {
	clips, sc := testCorpus(t, 2, 0.5)
	b := simServer(t, sim.Config{Corpus: sc, BaseLatency: time.Millisecond})
	gone := make(chan struct{})
	close(gone) // a is gone before its first step: every step of a is skipped
	p := Plan{Targets: []Target{{Name: "a", URL: b.URL}, {Name: "b", URL: b.URL}},
		Corpus: clips, Levels: []int{1, 2}, Requests: []int{5, 3}, Repeats: 2, Seed: 7}
	dir, _, err := runPlan(t, p, WithTargetStop("a", gone, func() string { return "killed" }))
	var se *TargetStoppedError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *TargetStoppedError", err)
	}
	l := loadRun(t, dir)
	pr := l.run.Protocol
	used := map[string]int64{}
	checked := 0
	for li, c := range pr.Levels {
		for rep := 1; rep <= pr.Repeats; rep++ {
			order := []string{"a", "b"}
			if rep%2 == 0 {
				order = []string{"b", "a"}
			}
			for _, tn := range order {
				w, n := pr.Warmup[li], pr.Requests[li]
				want := make([]int64, w+n)
				for seq := range want {
					i := seq
					if seq >= w {
						i = seq - w
					}
					sha := l.run.Corpus[i%len(l.run.Corpus)].SHA256
					want[seq] = used[sha]
					used[sha]++
				}
				f := fmt.Sprintf("records/%s/c%d-r%d.jsonl", tn, c, rep)
				recs := l.files[f]
				if tn == "a" {
					if len(recs) > 0 {
						t.Errorf("%s: %d records of a stopped target", f, len(recs))
					}
					continue
				}
				if len(recs) != w+n {
					t.Fatalf("%s: %d records, want %d", f, len(recs), w+n)
				}
				for _, r := range recs {
					if r.Variant != want[r.Seq] {
						t.Errorf("%s seq %d: variant %d, want %d (counted over every planned step)", f, r.Seq, r.Variant, want[r.Seq])
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no record checked")
	}
}
