package runreport

import (
	"bufio"
	"fmt"
	"os"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// Live is the pass ReadGated makes, made while the run is evaluated, with
// each sample's JSON encoding spooled beside the database: the JSON report
// is then a copy of the spool, without reading the run back from the store.
// A Live pass that cannot account for every stored result says so (Pass
// returns nil), and the caller reads the run from the store.
type Live struct {
	sr       *Pass
	levels   report.Levels
	enc      *report.SampleEncoder
	spool    *os.File
	unlinked bool // the spool has no name any more (see NewLive)
	w        *bufio.Writer
	size     int64
	at       []span // where each sample's encoding is in the spool, by index (n == 0: not seen)
	err      error
}

type span struct {
	off int64
	n   int64
}

// NewLive starts a live pass over run info, counted against gate g, its
// spool a hidden file in dir that is removed by Close.
func NewLive(info report.RunInfo, g report.Gate, dir string) (*Live, error) {
	f, err := os.CreateTemp(dir, ".ragscope-report-*.spool")
	if err != nil {
		return nil, err
	}
	// Unlinked at once where the system allows it (the open file stays
	// readable): a process killed mid-run leaves no spool behind.
	unlinked := os.Remove(f.Name()) == nil
	levels := report.RunLevels(info)
	sr := &Pass{Info: info, Tally: report.NewTallyAt(info.Scored(), levels), Worst: report.NewWorst(0), Gate: report.NewGateTally(g, gateWorst)}
	return &Live{sr: sr, levels: levels, enc: report.NewSampleEncoder(levels), spool: f, unlinked: unlinked, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Add counts one stored result and spools its encoding.
func (l *Live) Add(r *eval.Result) {
	if l.err != nil || r == nil {
		return
	}
	if r.Index < 0 {
		l.err = fmt.Errorf("sample index %d", r.Index)
		return
	}
	if r.Index < len(l.at) && l.at[r.Index].n > 0 {
		l.err = fmt.Errorf("sample %d given twice", r.Index)
		return
	}
	b, err := l.enc.Encode(r)
	if err == nil {
		_, err = l.w.Write(b)
	}
	if err != nil {
		l.err = err
		return
	}
	for r.Index >= len(l.at) {
		l.at = append(l.at, make([]span, len(l.at)+1024)...)
	}
	l.at[r.Index] = span{l.size, int64(len(b))}
	l.size += int64(len(b))
	_ = l.sr.add(r)
}

// Pass is the pass over the run whose stamped record is info, nil when
// the live pass cannot stand for one read from the store (see Live).
func (l *Live) Pass(info report.RunInfo) *Pass {
	if l.err == nil {
		l.err = l.w.Flush()
	}
	if l.err != nil || report.RunLevels(info).String() != l.levels.String() {
		return nil
	}
	l.sr.Info = info
	l.sr.Outcome = l.sr.Gate.Outcome(l.sr.Tally)
	l.sr.live = l
	return l.sr
}

// Close removes the spool; a nil Live has none.
func (l *Live) Close() {
	if l == nil {
		return
	}
	l.spool.Close()
	if !l.unlinked {
		os.Remove(l.spool.Name())
	}
}

// spoolWindow is how much of the spool is read at once. Samples finish
// nearly in order (each worker takes the next), so one that finished
// before a sample of a lower index is near it in the spool: a window
// centred on the sample read holds both, and the spool is read about
// twice over, not once a sample.
const spoolWindow = 1 << 20

// samples yields the spooled encodings in the order of the samples.
func (l *Live) samples(yield func([]byte) error) error {
	buf := make([]byte, 0, spoolWindow)
	from := int64(0) // the spool's offset of buf[0]
	for _, s := range l.at {
		if s.n == 0 {
			continue
		}
		if s.off < from || s.off+s.n > from+int64(len(buf)) {
			from = max(0, s.off-spoolWindow/2)
			n := min(max(spoolWindow, s.off+s.n-from), l.size-from)
			if int64(cap(buf)) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, err := l.spool.ReadAt(buf, from); err != nil {
				return fmt.Errorf("reading the report's spool: %v", err)
			}
		}
		if err := yield(buf[s.off-from : s.off-from+s.n]); err != nil {
			return err
		}
	}
	return nil
}
