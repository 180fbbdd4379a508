package calibrate

import (
	"fmt"
	"strings"
)

// DescribeSets lists the sets for the help of ragscope calibrate: each
// one's file, its rows with their targets, and what was published on it.
func DescribeSets() string {
	var b strings.Builder
	var ownRead, ownHeld int // the embedded sets, said in one line
	var ownTargets []string
	for _, set := range Sets {
		if set.Path == embeddedPath {
			if len(set.Rows) > 0 && set.Rows[0].Read {
				ownRead++
			} else {
				ownHeld++
				if set.Target > 0 {
					ownTargets = append(ownTargets, fmt.Sprintf("%s %.2f", strings.TrimSuffix(set.Name, " (own)"), set.Target))
				}
			}
			continue
		}
		if set.LoadAnswers != nil {
			fmt.Fprintf(&b, "\n  %-45s offline, per answer: balanced accuracy and ROC-AUC, no target", set.Path)
			continue
		}
		var rows []string
		for _, r := range set.Rows {
			switch {
			case r.Read:
				rows = append(rows, fmt.Sprintf("%s read (no target)", r.Construction))
			case r.Tuned:
				rows = append(rows, fmt.Sprintf("%s tuned %.2f", r.Construction, set.Target))
			default:
				rows = append(rows, fmt.Sprintf("%s held out %.2f", r.Construction, set.Target))
			}
		}
		pub := ""
		if set.Published.Accuracy > 0 {
			pub = fmt.Sprintf("; published %.2f (%s)", set.Published.Accuracy, set.Published.Judge)
		}
		if set.LLM {
			pub += "; also --judge llm"
		}
		fmt.Fprintf(&b, "\n  %-45s offline: %s%s", set.Path, strings.Join(rows, ", "), pub)
	}
	if ownRead+ownHeld > 0 {
		targets := "no target"
		if len(ownTargets) > 0 {
			targets = "targets " + strings.Join(ownTargets, ", ") + ", the others none"
		}
		fmt.Fprintf(&b, "\n  %-45s offline: given, %d read, %d held out (%s); embedded, no --datasets needed",
			fmt.Sprintf("ragscope/enterprise-1..%d", ownRead+ownHeld), ownRead, ownHeld, targets)
	}
	return b.String()
}

// Shortfall says what a missed row (Report.Missed) fell below: its
// target, its set's previous figure, or both.
func (r CalibrationRow) Shortfall() string {
	why := fmt.Sprintf("below its target %.2f", r.Target)
	if r.Target == 0 || r.Passed() {
		why = fmt.Sprintf("below its previous figure %.3f", r.Previous)
	} else if r.Previous > 0 && r.Accuracy < r.Previous-1e-9 {
		why += fmt.Sprintf(" and its previous figure %.3f", r.Previous)
	}
	return why
}
