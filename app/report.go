package app

import (
	"fmt"
	"io"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// reportPage is how many results a report reads from the store at once:
// the memory of a report is a page, whatever the size of the run.
const reportPage = 256

// Report formats.
const (
	FormatJSON     = "json"
	FormatCSV      = "csv"
	FormatMarkdown = "md"
)

// storedRun is a pass over a stored run: its record, the tally of its
// results, its worst samples, and which samples it saw (a run being
// evaluated gains results between two passes; the second pass writes only
// what the first counted, so the summary and the samples agree).
type storedRun struct {
	info  eval.RunInfo
	tally *eval.Tally
	worst *eval.Worst
	seen  indexSet
}

// tallyStored reads stored run ref once, keeping only the tally and the
// worst samples.
func tallyStored(st cache.Store, ref string, worst int) (*storedRun, error) {
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return nil, err
	}
	sr := &storedRun{info: info, tally: eval.NewTally(info.Metrics), worst: eval.NewWorst(worst)}
	err = eachStored(st, info.ID, nil)(func(r *eval.Result) error {
		sr.tally.Add(r)
		sr.worst.Add(r)
		sr.seen.add(r.Index)
		return nil
	})
	return sr, err
}

// eachStored yields run id's stored results in index order, a page at a
// time; keep, when set, says which indexes to yield.
func eachStored(st cache.Store, id string, keep func(int) bool) func(yield func(*eval.Result) error) error {
	return func(yield func(*eval.Result) error) error {
		for from := 0; from >= 0; {
			_, page, next, err := st.RunPage(id, from, reportPage)
			if err != nil {
				return err
			}
			for _, r := range page {
				if keep != nil && !keep(r.Index) {
					continue
				}
				if err := yield(r); err != nil {
					return err
				}
			}
			if next >= 0 && next <= from {
				return fmt.Errorf("run %s: the store went back from sample %d to %d", id, from, next)
			}
			from = next
		}
		return nil
	}
}

// WriteReport writes stored run ref's report in format to w, streaming it
// from the store, and returns the pass it made (for the summary).
func WriteReport(st cache.Store, ref, format string, worst int, w io.Writer) (*storedRun, error) {
	if format == FormatCSV {
		// One pass: a CSV has no header that needs the whole run.
		info, _, _, err := st.RunPage(ref, 0, 0)
		if err != nil {
			return nil, err
		}
		return &storedRun{info: info}, eval.WriteReportCSV(w, info.Judge.Name, eachStored(st, info.ID, nil))
	}
	sr, err := tallyStored(st, ref, worst)
	if err != nil {
		return nil, err
	}
	return sr, sr.write(st, format, w)
}

// write writes the report of a tallied run.
func (sr *storedRun) write(st cache.Store, format string, w io.Writer) error {
	switch format {
	case FormatJSON:
		return eval.WriteReportJSON(w, sr.info, sr.tally.Summary(), sr.tally.Diagnoses(), eachStored(st, sr.info.ID, sr.seen.has))
	case FormatCSV:
		return eval.WriteReportCSV(w, sr.info.Judge.Name, eachStored(st, sr.info.ID, sr.seen.has))
	case FormatMarkdown:
		return eval.WriteReportMarkdown(w, sr.info, sr.tally.Summary(), sr.tally.Diagnoses(), sr.worst.Samples())
	}
	return usagef("--format %q is not one of json, csv, md", format)
}

// indexSet is a set of sample indexes: one bit per sample.
type indexSet struct{ bits []uint64 }

func (s *indexSet) add(i int) {
	if i < 0 {
		return
	}
	for i/64 >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, len(s.bits)+1)...)
	}
	s.bits[i/64] |= 1 << (i % 64)
}

func (s *indexSet) has(i int) bool {
	return i >= 0 && i/64 < len(s.bits) && s.bits[i/64]&(1<<(i%64)) != 0
}
