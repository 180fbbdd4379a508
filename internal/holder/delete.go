package holder

import (
	"fmt"
	"slices"
)

// LiveError is the refusal to delete runs that are being evaluated.
type LiveError struct {
	RunID string
	LiveRun
}

func (e *LiveError) Error() string {
	return fmt.Sprintf("run %s is being evaluated now by pid %d (%s); stop it (or let it finish) before deleting it", e.RunID, e.PID, e.Role)
}

// RefuseLive returns a *LiveError for the first of ids (in sorted order)
// that is live, nil when none is.
func RefuseLive(live map[string]LiveRun, ids []string) error {
	for _, id := range slices.Sorted(slices.Values(ids)) {
		if lr, ok := live[id]; ok {
			return &LiveError{RunID: id, LiveRun: lr}
		}
	}
	return nil
}
