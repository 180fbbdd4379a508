package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/outfile"
	"github.com/ragscope/ragscope/internal/store"
)

// endpointsFile, beside the database, remembers what runs found out about
// an endpoint and model, so that the next run sends no call it is known to
// refuse. It is keyed by host, path and model: never a key or a query.
const endpointsFile = "endpoints.json"

// rememberedEndpoint is one profile as remembered, with when it was learned.
type rememberedEndpoint struct {
	endpoint.EndpointProfile
	Learned time.Time `json:"learned"`
}

func endpointKey(baseURL, model string) string { return eval.EndpointOf(baseURL) + " " + model }

func endpointsPath(db string) string {
	p, err := store.DBPath(db)
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(p), endpointsFile)
}

func readEndpoints(path string) (map[string]rememberedEndpoint, error) {
	m := map[string]rememberedEndpoint{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) || path == "" {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]rememberedEndpoint{}, fmt.Errorf("%s: %v (delete it: it is only what earlier runs learned)", path, err)
	}
	return m, nil
}

// RememberedEndpoint is the profile earlier runs learned of an endpoint and
// model (the zero profile when none). A damaged file is said on warn and
// read as empty: it only saves refused calls.
func RememberedEndpoint(db, baseURL, model string, warn func(string)) endpoint.EndpointProfile {
	m, err := readEndpoints(endpointsPath(db))
	if err != nil && warn != nil {
		warn(err.Error())
	}
	return m[endpointKey(baseURL, model)].EndpointProfile
}

// RememberEndpoint stores what a run learned of an endpoint and model,
// replacing the file whole (another process's write in between is lost,
// and learned again by its next run).
func RememberEndpoint(db, baseURL, model string, p endpoint.EndpointProfile) error {
	path := endpointsPath(db)
	if path == "" {
		return nil
	}
	m, _ := readEndpoints(path)
	m[endpointKey(baseURL, model)] = rememberedEndpoint{EndpointProfile: p, Learned: time.Now().UTC()}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return outfile.Write(path, append(b, '\n'))
}

// stampEndpoint records what the run knows of its endpoint with the run
// (its config's "endpoint") and remembers what it learned for the next.
func (s *Session) stampEndpoint(info *report.RunInfo) {
	if s.abilities == nil {
		return
	}
	p := s.abilities.Profile()
	if n := p.Notice(); n != "" {
		if info.Config == nil {
			info.Config = map[string]string{}
		}
		info.Config["endpoint"] = n
	}
	// The format the run ended with, not the one it started from.
	if info.Config != nil && info.Config["response_format"] != "" {
		info.Config["response_format"] = p.Format
	}
	if s.abilities.Changed() {
		if err := RememberEndpoint(s.Cfg.DB, s.Cfg.JudgeURL(), s.Cfg.Model, s.abilities.ToRemember()); err != nil {
			fmt.Fprintln(s.log, "remembering the endpoint's profile:", err)
		}
	}
}
