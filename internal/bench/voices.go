package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/benchseal/benchseal/internal/engine"
)

// VoiceError says that items a target is to speak without a reference
// clip name voices its engine does not serve: every such request would
// fail (vLLM-Omni: a CustomVoice voice must be one of the checkpoint's
// speakers), so nothing is measured.
type VoiceError struct {
	Target  string
	Engine  string
	Missing map[string][]string // voice -> the items naming it
	Listed  []string
}

func (e *VoiceError) Error() string {
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(e.Missing)) {
		parts = append(parts, fmt.Sprintf("%q (%s)", v, firstN(e.Missing[v], 3)))
	}
	return fmt.Sprintf("target %q (%s) does not list the voice(s) %s in GET %s; it lists: %s",
		e.Target, e.Engine, strings.Join(parts, ", "), engine.VoicesPath, strings.Join(e.Listed, ", "))
}

// voiceUses are the voices the requests of t without a reference clip
// name (the target's voice field, else each item's), with the items: a
// request with a reference clip clones it, and one naming no voice gets
// the engine's default speaker.
func voiceUses(t Target, corpus []Clip) map[string][]string {
	uses := map[string][]string{}
	for _, c := range corpus {
		if !c.NoInput() {
			continue
		}
		v := c.Voice
		if f, ok := t.Fields["voice"]; ok {
			v = f
		}
		if v != "" {
			uses[v] = append(uses[v], c.ID)
		}
	}
	return uses
}

// checkVoices holds the voices of t's requests without a reference clip
// to the list its engine serves, where the engine's row says the list is
// complete (engine.VoiceList). It returns what could not be checked and
// why ("" when everything was, or nothing names a voice), or a
// *VoiceError.
func checkVoices(ctx context.Context, client *http.Client, t Target, eng *engine.Engine, task string, corpus []Clip, apiKey string) (string, error) {
	uses := voiceUses(t, corpus)
	if len(uses) == 0 {
		return "", nil
	}
	if eng == nil {
		return fmt.Sprintf("target %q: the voices its items name were not checked: its /v1/models names no engine benchseal knows", t.Name), nil
	}
	eng = taskEngine(eng, task)
	row, _ := eng.Task(task)
	if row.Voices == nil || !row.Voices.Complete {
		return fmt.Sprintf("target %q: the voices its items name were not checked: %s lists no complete set of voices (%s)", t.Name, eng.Name, voiceSource(row.Voices)), nil
	}
	listed, err := listVoices(ctx, client, t, row.Voices.Path, apiKey)
	if err != nil {
		return fmt.Sprintf("target %q: the voices its items name were not checked: %v", t.Name, err), nil
	}
	missing := map[string][]string{}
	for v, items := range uses {
		if !slices.ContainsFunc(listed, func(l string) bool { return l == v || row.Voices.Fold && strings.EqualFold(l, v) }) {
			missing[v] = items
		}
	}
	if len(missing) > 0 {
		return "", &VoiceError{Target: t.Name, Engine: eng.Name, Missing: missing, Listed: listed}
	}
	return "", nil
}

func voiceSource(v *engine.VoiceList) string {
	if v == nil {
		return "no voice list"
	}
	return v.Source
}

// listVoices is a target's GET <path>: its "voices".
func listVoices(ctx context.Context, client *http.Client, t Target, path, apiKey string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(t.URL, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d %s", path, resp.StatusCode, safeString(b, 200))
	}
	var doc struct {
		Voices []string `json:"voices"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("GET %s: not a voice list: %w", path, err)
	}
	return doc.Voices, nil
}

// taskEngine is the engine behind a server of task whose /v1/models
// named eng: vLLM-Omni answers owned_by "vllm", as vLLM does, but only
// vLLM-Omni serves /v1/audio/speech.
func taskEngine(eng *engine.Engine, task string) *engine.Engine {
	if _, ok := eng.Task(task); ok {
		return eng
	}
	for _, e := range engine.All() {
		if _, ok := e.Task(task); ok && e.Models.OwnedBy == eng.Models.OwnedBy {
			return e
		}
	}
	return eng
}
