package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/benchseal/benchseal/internal/task"
)

// TargetError says a target did not answer the preflight check.
type TargetError struct {
	Target string
	URL    string
	Err    error
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("target %q (%s) is not answering: %v", e.Target, fingerprint.Redact(e.URL), e.Err)
}
func (e *TargetError) Unwrap() error { return e.Err }

// ModelError says which model to pick when the target's is unclear.
type ModelError struct {
	Target string
	Served []string
}

func (e *ModelError) Error() string {
	if len(e.Served) == 0 {
		return fmt.Sprintf("target %q: no --model given and /v1/models lists none", e.Target)
	}
	return fmt.Sprintf("target %q: no --model given and the server serves %d models: %s", e.Target, len(e.Served), strings.Join(e.Served, ", "))
}

// UnknownModelError says a target lists the models it serves and the
// requested one is not among them: every request would fail (vLLM answers
// 404 "The model ... does not exist."), so nothing is measured.
// Ignores names the target's engine when its row of internal/engine says
// it does not check the model on transcriptions (SGLang-Omni): its
// requests would not fail but be answered by a served model, under the
// requested name.
type UnknownModelError struct {
	Target  string
	Model   string
	Served  []string
	Ignores string
}

func (e *UnknownModelError) Error() string {
	if e.Ignores != "" {
		return fmt.Sprintf("target %q does not serve model %q; /v1/models lists: %s (%s does not check the model field: %s would answer)",
			e.Target, e.Model, strings.Join(e.Served, ", "), e.Ignores, strings.Join(e.Served, " or "))
	}
	return fmt.Sprintf("target %q does not serve model %q; /v1/models lists: %s", e.Target, e.Model, strings.Join(e.Served, ", "))
}

// WithUnlistedModel lets a run request a model its target does not list in
// /v1/models (for servers that ignore the model field); the mismatch is
// then a warning instead of an *UnknownModelError.
func WithUnlistedModel() Option { return func(c *config) { c.unlistedModel = true } }

// Models asks a target which models it serves (GET <url>/v1/models).
func Models(ctx context.Context, client *http.Client, t Target, apiKey string) ([]string, error) {
	ids, _, err := listModels(ctx, client, t, apiKey)
	return ids, err
}

// listModels is Models, and the engine /v1/models names (parseModels).
func listModels(ctx context.Context, client *http.Client, t Target, apiKey string) ([]string, *engine.Engine, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(t.URL, "/")+"/v1/models", nil)
	if err != nil {
		return nil, nil, &TargetError{t.Name, t.URL, err}
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, &TargetError{t.Name, t.URL, unwrapURLError(err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, nil, &TargetError{t.Name, t.URL, err}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &TargetError{t.Name, t.URL, fmt.Errorf("GET /v1/models: HTTP %d %s", resp.StatusCode, safeString(b, 200))}
	}
	ids, eng, err := parseModels(b)
	if err != nil {
		return nil, nil, &TargetError{t.Name, t.URL, fmt.Errorf("GET /v1/models: not a model list: %w", err)}
	}
	return ids, eng, nil
}

// parseModels reads a /v1/models answer: the ids, sorted, and the engine
// an entry's owned_by names (nil when none does).
func parseModels(b []byte) (ids []string, eng *engine.Engine, err error) {
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, nil, err
	}
	for _, m := range list.Data {
		ids = append(ids, m.ID)
		if e, ok := engine.ByOwnedBy(m.OwnedBy); ok {
			eng = e
		}
	}
	slices.Sort(ids)
	return ids, eng, nil
}

// preflight checks every target answers and settles its model.
func preflight(ctx context.Context, cfg *config, taskName string, targets []Target, corpus []Clip, stream bool) ([]Target, error) {
	out := slices.Clone(targets)
	for i, t := range out {
		client := &http.Client{Timeout: min(cfg.timeout, preflightTimeout)}
		models, eng, err := listModels(ctx, client, t, cfg.apiKey)
		if err != nil {
			return nil, err
		}
		ignores := ""
		if eng != nil && eng.Transcription.IgnoresModel {
			ignores = eng.Name
		}
		switch {
		case t.Model == "" && len(models) == 1:
			out[i].Model = models[0]
		case t.Model == "":
			return nil, &ModelError{t.Name, models}
		case len(models) > 0 && !slices.Contains(models, t.Model) && !cfg.unlistedModel:
			return nil, &UnknownModelError{t.Name, t.Model, models, ignores}
		case !slices.Contains(models, t.Model) && ignores != "":
			// Not "serves": the server takes any name and answers with
			// its own model, so the records would carry a name that did
			// not answer them.
			cfg.progress.Warnf("target %q does not list model %q in /v1/models, and %s does not check the model field: its own model (%s) answers, not %q",
				t.Name, t.Model, ignores, strings.Join(models, ", "), t.Model)
		case !slices.Contains(models, t.Model):
			cfg.progress.Warnf("target %q does not list model %q in /v1/models; it lists: %s", t.Name, t.Model, strings.Join(models, ", "))
		}
		if taskName == engine.TaskRealtime && t.Fields[task.FieldProtocol] == "" && eng != nil {
			// The protocol is the engine's (its realtime row), sealed
			// as the target's field.
			if row, ok := eng.Task(engine.TaskRealtime); ok {
				out[i].Fields = maps.Clone(t.Fields)
				if out[i].Fields == nil {
					out[i].Fields = map[string]string{}
				}
				out[i].Fields[task.FieldProtocol] = string(row.Stream)
			}
		}
		if w := chunkWarning(t.Name, eng, out[i].Model, t.Fields["language"] != "", corpus, stream); w != "" {
			cfg.progress.Warnf("%s", w)
		}
		// Only a corpus whose items name voices has any to check (tts's).
		note, err := checkVoices(ctx, client, t, eng, taskName, corpus, cfg.apiKey)
		if err != nil {
			return nil, err
		}
		if note != "" {
			cfg.progress.Warnf("%s", note)
		}
	}
	return out, nil
}

// chunkWarning names the clips longer than the target's engine splits in
// one request (internal/engine's Chunking; every engine's limit when
// /v1/models named none), and what that does to its counters: "" when
// none is.
func chunkWarning(target string, eng *engine.Engine, model string, language bool, corpus []Clip, stream bool) string {
	engines := engine.All()
	if eng != nil {
		engines = []*engine.Engine{eng}
	}
	var parts []string
	var seen []engine.Chunking
	for _, e := range engines {
		c := e.Transcription.Chunking
		if c.ClipS <= 0 || (stream && !c.Streams) || slices.Contains(seen, c) {
			continue // vLLM-Omni splits as vLLM does: named once
		}
		seen = append(seen, c)
		var long []string
		most := 0.0
		for _, cl := range corpus {
			if cl.NoInput() {
				continue // nothing sent to split
			}
			if s := cl.WAV.Seconds(); s > c.ClipS {
				long = append(long, cl.ID)
				most = max(most, s)
			}
		}
		if len(long) == 0 {
			continue
		}
		lo, hi := c.EngineRequests(most, stream, c.DetectsLanguage(model, language))
		n := fmt.Sprintf("%d clips are", len(long))
		if len(long) == 1 {
			n = "1 clip is"
		}
		p := fmt.Sprintf("%s longer than %s's %s s chunk limit (%s), so %s splits each request of them (the longest, %.1f s: %d to %d engine requests)",
			n, e.Name, strconv.FormatFloat(c.ClipS, 'g', -1, 64), firstN(long, 3), e.Name, most, lo, hi)
		if c.Counted {
			p += ", and its request counter and stage histograms count each engine request"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("target %q: %s", target, strings.Join(parts, "; "))
}

// firstN lists up to n of ids, then how many more.
func firstN(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(" and %d more", len(ids)-n)
}

// unwrapURLError drops net/url's `Get "...": ` wrapper: the message names
// the target already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
