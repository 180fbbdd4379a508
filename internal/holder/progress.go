package holder

import (
	"time"

	"github.com/ragscope/ragscope/eval"
)

// Progress is what the process evaluating a run tells the holder of it, so
// that a process watching the run shows the samples being evaluated and
// the calls made so far. It lives in the holder's memory with the live run.
type Progress struct {
	Calls  eval.CallCounts `json:"calls"`
	Tokens eval.Usage      `json:"tokens"`
	// InFlight is the judge requests on the wire.
	InFlight int `json:"in_flight"`
	// Samples are the samples being evaluated, by index.
	Samples []StartedSample `json:"samples,omitempty"`
}

// StartedSample is a sample being evaluated: what a row shows before its
// result comes (texts cut to a few hundred bytes: a row shows their heads).
type StartedSample struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Question string `json:"question,omitempty"`
	Answer   string `json:"answer,omitempty"`
	// Started is when its evaluation began: a client's pace (ETA) reads
	// it, not the moment it saw the sample.
	Started time.Time `json:"started,omitzero"`
}

// RunProgress is a live run's last Progress; Live is false when nobody
// evaluates the run any more.
type RunProgress struct {
	Live     bool      `json:"live"`
	Progress *Progress `json:"progress,omitempty"`
}

// SetProgress records the progress of a run this process evaluates.
func (s *Server) SetProgress(id string, p Progress) { s.setProgress(id, nil, p) }

// setProgress records a live run's progress, only if owner began it.
func (s *Server) setProgress(id string, owner *conn, p Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.live[id]; ok && e.owner == owner {
		e.progress = &p
		s.live[id] = e
	}
}

// Progress is a run's last progress, and whether it is live.
func (s *Server) Progress(id string) RunProgress {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.live[id]
	return RunProgress{Live: ok, Progress: e.progress}
}

// SetProgress tells the holder the progress of a run this client evaluates
// (announced with BeginRun).
func (c *Client) SetProgress(id string, p Progress) error {
	return c.call("SetProgress", []any{id, p})
}

// Progress is a live run's last progress, as its evaluator told the holder.
func (c *Client) Progress(id string) (RunProgress, error) {
	return ask[RunProgress](c.Stub, "Progress", id)
}
