// Package html writes a run's report as one HTML page, with a baseline's
// compare view of what changed.
package html

import (
	"bufio"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// The HTML report is one page that opens anywhere: its CSS and script
// are inline and it loads nothing. Every text from data or a judge is made
// visible by the sanitiser, then escaped by html/template; none is ever
// written as template.HTML, into a URL or into the script. Each drill-down
// is a <details> element, so the page reads without script.

//go:embed report.tmpl
var htmlSource string

var htmlPage = template.Must(template.New("page").Parse(htmlSource))

// htmlBins is how many bars a metric's distribution has: tenths of the
// score, the last one closed (1.0 falls in 0.9–1.0).
const htmlBins = 10

// Write writes a run's report as one HTML page, streamed: the header,
// the summary and a distribution per scored name, then each sample as
// each yields it, with nothing held but the histograms (and, with a
// baseline, where each sample's counterpart is). each is read twice: the
// distributions come first. base, when set, adds the comparison with that
// run: the means before and after, a Δ column per metric, and each
// changed sample's changed judgements.
func Write(w io.Writer, run report.RunInfo, summary map[eval.Metric]report.MetricSummary, diagnoses map[report.Diagnosis]int, each func(yield func(*eval.Result) error) error, base *Baseline) error {
	scored := run.Scored()
	hist := make([][htmlBins]int, len(scored)) // by position in scored
	hc := newHTMLComparison(base)
	levels := report.RunLevels(run)
	convs := report.NewTallyAt(scored, levels)
	err := each(func(r *eval.Result) error {
		convs.Add(r)
		for i, m := range scored {
			if v, ok := r.Score(m); ok && r.Status[m] == eval.StatusOK {
				hist[i][min(max(int(math.Floor(v*htmlBins)), 0), htmlBins-1)]++
			}
		}
		if hc != nil {
			if pos := hc.c.Add(r); pos >= 0 {
				hc.pos[r.Index] = pos
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	head := htmlHeadOf(run, summary, diagnoses, hist, levels)
	head.Conversations = htmlConversationsOf(scored, convs.Conversations())
	if hc != nil {
		head.Compare = hc.head()
		for _, m := range hc.c.Metrics() {
			head.Deltas = append(head.Deltas, htmlMetric{Name: sanitize.Line(string(m)), Abbrev: sanitize.Line(eval.MetricAbbrev(m))})
		}
	}
	if err := htmlPage.ExecuteTemplate(bw, "head", head); err != nil {
		return err
	}
	n := 0
	err = each(func(r *eval.Result) error {
		n++
		s := htmlSampleOf(run.Metrics, scored, r, levels)
		if hc != nil {
			if err := hc.sample(&s, r); err != nil {
				return err
			}
		}
		if err := htmlPage.ExecuteTemplate(bw, "sample", s); err != nil {
			return err
		}
		return show.WriteErr(bw)
	})
	if err != nil {
		return err
	}
	if err := htmlPage.ExecuteTemplate(bw, "tail", n); err != nil {
		return err
	}
	return bw.Flush()
}

type htmlHead struct {
	Title     string
	Facts     []report.Fact
	Levels    string
	Metrics   []htmlMetric
	Diagnoses []report.Fact
	// Compare and Deltas (the metrics compared, a Δ column each) are set
	// with a baseline.
	Compare *htmlCompareHead
	Deltas  []htmlMetric
	// Conversations are the run's conversations, when it has some.
	Conversations []htmlConversation
}

// htmlConversation is a conversation in the header: per metric its mean,
// minimum and first failing turn, linked to that turn's drill-down.
type htmlConversation struct {
	ID      string
	Turns   int
	Metrics []htmlConversationMetric
}

type htmlConversationMetric struct {
	Name, Mean, Min string
	// Turn is the first failing turn (0: none) and Index its sample's.
	Turn, Index int
}

func htmlConversationsOf(metrics []eval.Metric, convs []report.ConversationSummary) []htmlConversation {
	var out []htmlConversation
	for _, c := range convs {
		hc := htmlConversation{ID: sanitize.Line(c.ID), Turns: c.Turns}
		for _, m := range metrics {
			cm := c.Metrics[m]
			if cm == nil {
				continue
			}
			hm := htmlConversationMetric{Name: sanitize.Line(string(m)), Mean: show.Score(cm.Mean), Min: show.Score(cm.Min)}
			if cm.FirstFailingTurn != nil {
				hm.Turn, hm.Index = *cm.FirstFailingTurn, cm.FirstFailingIndex
			}
			hc.Metrics = append(hc.Metrics, hm)
		}
		out = append(out, hc)
	}
	return out
}

type htmlMetric struct {
	Name, Abbrev, Mean, Why string
	Scored, NA, Failed      int
	Lower                   bool
	Bars                    []htmlBar
}

// htmlBar is one bar of a distribution, in the SVG's coordinates (a
// 200×60 box, the bars on a baseline at 50).
type htmlBar struct {
	X, Y, H float64
	N       int
	Range   string
}

func htmlHeadOf(run report.RunInfo, summary map[eval.Metric]report.MetricSummary, diag map[report.Diagnosis]int, hist [][htmlBins]int, levels report.Levels) htmlHead {
	h := htmlHead{Title: "ragscope run " + sanitize.Line(run.ID)}
	took, ended := run.Duration()
	h.Facts = run.HeaderFacts(sanitize.Line(run.Dataset), took, ended, report.DiagTotal(diag))
	if !levels.IsDefault() {
		h.Levels = sanitize.Line(levels.Describe())
	}
	for i, m := range run.Scored() {
		ms := summary[m]
		hm := htmlMetric{Name: sanitize.Line(string(m)), Abbrev: sanitize.Line(eval.MetricAbbrev(m)), Mean: show.Score(ms.Mean),
			Why: sanitize.Line(ms.Why()), Scored: ms.Scored, NA: ms.NotApplicable, Failed: ms.Failed, Lower: eval.LowerIsBetter(m)}
		bins := hist[i]
		top := 1
		for _, n := range bins {
			top = max(top, n)
		}
		for i, n := range bins {
			if n == 0 {
				continue
			}
			bh := math.Round(480*float64(n)/float64(top)) / 10
			hm.Bars = append(hm.Bars, htmlBar{X: float64(i) * 20, Y: 50 - bh, H: bh, N: n,
				Range: fmt.Sprintf("%.1f–%.1f", float64(i)/htmlBins, float64(i+1)/htmlBins)})
		}
		h.Metrics = append(h.Metrics, hm)
	}
	for _, d := range report.DiagnosesAt(levels) {
		h.Diagnoses = append(h.Diagnoses, report.Fact{Name: string(d), Value: fmt.Sprint(diag[d])})
	}
	return h
}

type htmlSample struct {
	// Deltas, Changed ("", "changed" or "new"), BaseNote and Changes are
	// the comparison with a baseline, when there is one.
	Deltas                      []htmlCell
	Changed, BaseNote           string
	Changes                     []show.Change
	Index                       int
	ID, Question, Answer, Ref   string
	Contexts                    [][]htmlSpan
	Cells                       []htmlCell
	Diagnosis, Why, Calls       string
	Sections, Criteria          []htmlSection
	NotComputable, FailureLines []string
}

// htmlSpan is a piece of a chunk's text; Quoted: a judge cited it.
type htmlSpan struct {
	Text   string
	Quoted bool
}

// quotedChunks are the sample's chunks with the quotes that faithfulness's
// and context recall's verdicts cite marked in them (where they are found:
// a quote not in its chunk is flagged with its verdict instead).
func quotedChunks(r *eval.Result) [][]htmlSpan {
	marks := make([][][2]int, len(r.Contexts))
	cite := func(ev *eval.Citation) {
		if k, start, end, ok := ev.Locate(r.Contexts); ok && end > start {
			marks[k] = append(marks[k], [2]int{start, end})
		}
	}
	if t := r.Faithfulness; t != nil {
		for _, v := range t.Statements {
			cite(v.Evidence)
		}
	}
	if t := r.ContextRecall; t != nil {
		for _, c := range t.Classifications {
			cite(c.Evidence)
		}
	}
	out := make([][]htmlSpan, len(r.Contexts))
	for k, c := range r.Contexts {
		slices.SortFunc(marks[k], func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
		at := 0
		for _, m := range marks[k] {
			if m[1] <= at {
				continue // inside a quote already marked
			}
			if m[0] > at {
				out[k] = append(out[k], htmlSpan{Text: sanitize.Text(c[at:m[0]])})
			}
			out[k] = append(out[k], htmlSpan{Text: sanitize.Text(c[max(m[0], at):m[1]]), Quoted: true})
			at = m[1]
		}
		if at < len(c) || len(out[k]) == 0 {
			out[k] = append(out[k], htmlSpan{Text: sanitize.Text(c[at:])})
		}
	}
	return out
}

// htmlCell is a score in the table: its text, the number it sorts by
// (the goodness, so every column sorts worst first the same way; "" for
// no score: it sorts last), its band's class and the metric's short name
// (shown before it where the table is laid out as cards, on a phone).
type htmlCell struct{ Text, Sort, Class, Label string }

// htmlSection is one metric's or criterion's part of a drill-down.
type htmlSection struct {
	Title, Score, Class string
	Status, StatusClass string
	Notes               []string
	Lists               []htmlList
	Formula             []string
}

// htmlList is a titled list of judged items ("" title: none).
type htmlList struct {
	Title string
	Items []htmlItem
	None  bool
}

// htmlItem is one judged text: its mark (OK: the verdict for the score),
// a lead (a rank, a cosine, a class), the text, the judge's reason and
// the evidence it cited.
type htmlItem struct {
	OK                           bool
	Lead, Text, Reason, Evidence string
	Flag, Note                   string
}

// bandClass is the class a score is drawn in, by its band.
func bandClass(l report.Levels, m eval.Metric, v float64) string {
	return [...]string{report.BandLow: "lo", report.BandMid: "mid", report.BandHigh: "hi"}[l.Band(m, v)]
}

// htmlSampleOf is a sample's row and drill-down: a cell per scored name
// (the run's metrics, then its criteria), a section per metric.
func htmlSampleOf(metrics, scored []eval.Metric, r *eval.Result, levels report.Levels) htmlSample {
	d := levels.Diagnose(r)
	s := htmlSample{Index: r.Index, ID: sanitize.Line(r.ID), Question: sanitize.Text(r.Question), Answer: sanitize.Text(r.Answer),
		Ref: sanitize.Text(r.Reference), Diagnosis: string(d), Why: sanitize.Line(show.Clip(levels.Why(r, d), 160))}
	s.Contexts = quotedChunks(r)
	for _, m := range scored {
		c := htmlCell{Text: "-", Class: "na", Label: sanitize.Line(eval.MetricAbbrev(m))}
		st, has := r.Status[m]
		if v, ok := r.Score(m); ok && st == eval.StatusOK {
			c.Text, c.Sort, c.Class = fmt.Sprintf("%.2f", v), fmt.Sprintf("%.6f", eval.Goodness(m, v)), bandClass(levels, m, v)
		} else if has {
			c.Text = sanitize.Line(string(st))
			line := sanitize.Line(string(m) + ": " + show.StatusText(r, m))
			switch {
			case st.Failed():
				c.Class = "fail"
				s.FailureLines = append(s.FailureLines, line)
			case st != eval.StatusOK && st != eval.StatusUnsupported:
				s.NotComputable = append(s.NotComputable, line)
			}
		}
		s.Cells = append(s.Cells, c)
	}
	for _, m := range metrics {
		s.Sections = append(s.Sections, htmlMetricSection(r, m, levels))
	}
	// The criteria in the file's order (the run's), then any other the
	// result holds.
	var names []string
	for _, m := range scored {
		if r.Criteria[string(m)] != nil {
			names = append(names, string(m))
		}
	}
	for _, name := range r.CriteriaNames() {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		s.Criteria = append(s.Criteria, htmlCriterionSection(r, name, levels))
	}
	cached := 0
	for _, c := range r.Calls {
		if c.Cached {
			cached++
		}
		if c.Error != "" {
			s.FailureLines = append(s.FailureLines, sanitize.Line("call "+c.Task+": "+c.Error))
		}
	}
	if n := len(r.Calls); n > 0 {
		s.Calls = fmt.Sprintf("%d judge calls (%d from the cache)", n, cached)
	}
	return s
}

func htmlMetricSection(r *eval.Result, m eval.Metric, levels report.Levels) htmlSection {
	sec := htmlSection{Title: sanitize.Line(string(m))}
	st, ok := r.Status[m]
	if !ok {
		sec.Status, sec.StatusClass = "not evaluated in this run (not in --metrics)", "muted"
		return sec
	}
	if v, ok := r.Score(m); ok && st == eval.StatusOK {
		sec.Score, sec.Class = fmt.Sprintf("%.3f", v), bandClass(levels, m, v)
	}
	if st != eval.StatusOK {
		sec.Status = sanitize.Line(show.StatusText(r, m))
		switch {
		case st.Failed():
			sec.StatusClass = "fail"
		case st == eval.StatusUnsupported:
			sec.StatusClass = "muted"
		default:
			sec.StatusClass = "warn"
		}
	}
	if fill := htmlSections[m]; fill != nil {
		fill(r, &sec)
	}
	if d := eval.Def(m); d != nil {
		sec.Formula = d.Formula(r)
	}
	return sec
}

// htmlSections fill in each metric's judgements, as the terminal's detail
// page shows them.
var htmlSections = map[eval.Metric]func(*eval.Result, *htmlSection){
	eval.Faithfulness: func(r *eval.Result, sec *htmlSection) {
		if t := r.Faithfulness; t != nil {
			statementsHTML(sec, r, t.Statements, func(v eval.StatementVerdict) htmlItem {
				return citedItem(v.Verdict == 1, v.Statement, v.Reason, v.Evidence)
			}, eval.LabelFaithfulness)
		}
	},
	eval.ContextRecall: func(r *eval.Result, sec *htmlSection) {
		if t := r.ContextRecall; t != nil {
			statementsHTML(sec, r, t.Classifications, func(c eval.Classification) htmlItem {
				return citedItem(c.Attributed == 1, c.Statement, c.Reason, c.Evidence)
			}, eval.LabelContextRecall)
		}
	},
	eval.AnswerRelevancy:     relevancyHTML,
	eval.ContextPrecision:    func(r *eval.Result, sec *htmlSection) { chunksHTML(sec, r.ContextPrecision, "") },
	eval.ContextUtilization:  func(r *eval.Result, sec *htmlSection) { chunksHTML(sec, r.ContextUtilization, " for the answer") },
	eval.AnswerCorrectness:   correctnessHTML,
	eval.FactualCorrectness:  factualHTML,
	eval.ContextEntityRecall: entityHTML,
	eval.NoiseSensitivity:    noiseHTML,
}

// judgedItem is a judged statement; ok: its verdict counts for the score.
func judgedItem(ok bool, lead, text, reason string) htmlItem {
	return htmlItem{OK: ok, Lead: sanitize.Line(lead), Text: sanitize.Text(text), Reason: sanitize.Text(reason)}
}

// listOf is a titled list of an item per x.
func listOf[T any](title string, xs []T, item func(T) htmlItem) htmlList {
	hl := htmlList{Title: title, None: len(xs) == 0}
	for _, x := range xs {
		hl.Items = append(hl.Items, item(x))
	}
	return hl
}

// quoted is a criterion's quote as an item's evidence ("" for none).
func quoted(q string) string {
	if q == "" {
		return ""
	}
	return sanitize.Text("\"" + q + "\"")
}

// citedItem is a judged statement with the evidence it cites ("no
// evidence given" when the judge gave none).
func citedItem(ok bool, text, reason string, ev *eval.Citation) htmlItem {
	it := judgedItem(ok, "", text, reason)
	evidence, cites := ev.Describe()
	it.Evidence = sanitize.Text(evidence)
	if cites && ev.Flagged() {
		it.Flag = sanitize.Line(ev.Flag)
	}
	return it
}

// statementsHTML lists a trace's judged statements and what the judge
// thought before the verdicts of task.
func statementsHTML[T any](sec *htmlSection, r *eval.Result, judged []T, item func(T) htmlItem, task string) {
	sec.Lists = append(sec.Lists, listOf("", judged, item))
	if s := r.Reasoning(task); s != "" {
		sec.Notes = append(sec.Notes, sanitize.Text("judge's reasoning: "+s))
	}
}

func relevancyHTML(r *eval.Result, sec *htmlSection) {
	t := r.AnswerRelevancy
	if t == nil {
		return
	}
	if t.Mode == eval.AnswerSimilarityMode {
		if t.NoncommittalHint != "" {
			sec.Notes = append(sec.Notes, sanitize.Line(fmt.Sprintf("noncommittal answer (%q)", t.NoncommittalHint)))
		}
		return
	}
	sec.Lists = append(sec.Lists, listOf("generated questions and their cosine to the question", t.Questions, func(q eval.GeneratedQuestion) htmlItem {
		it := htmlItem{OK: q.Noncommittal != 1, Lead: fmt.Sprintf("%.3f", q.Cosine), Text: sanitize.Text(q.Question)}
		if q.Noncommittal == 1 {
			it.Note = "noncommittal"
		}
		return it
	}))
}

func chunksHTML(sec *htmlSection, t *eval.ContextPrecisionTrace, what string) {
	if t == nil {
		return
	}
	var items []htmlItem
	for i, c := range t.Chunks {
		text := "not useful" + what
		if c.Verdict == 1 {
			text = "useful" + what
		}
		if i < len(t.Precisions) {
			text += fmt.Sprintf(" (precision@%d = %.3f)", c.Rank, t.Precisions[i])
		}
		it := htmlItem{OK: c.Verdict == 1, Lead: fmt.Sprintf("[%d]", c.Rank), Text: text, Reason: sanitize.Text(c.Reason)}
		if c.Reasoning != "" {
			it.Note = sanitize.Line("judge's reasoning: " + c.Reasoning)
		}
		items = append(items, it)
	}
	sec.Lists = append(sec.Lists, htmlList{Items: items, None: len(items) == 0})
}

func correctnessHTML(r *eval.Result, sec *htmlSection) {
	t := r.AnswerCorrectness
	if t == nil {
		return
	}
	for _, l := range t.Classes.Lists() {
		sec.Lists = append(sec.Lists, listOf(fmt.Sprintf("%s (%d)", l.Title, len(l.Items)), l.Items, func(it eval.CorrectnessItem) htmlItem {
			return judgedItem(l.Verdict == 1, "", it.Statement, it.Reason)
		}))
	}
	if r.Status[eval.AnswerCorrectness] != eval.StatusOK {
		sec.Notes = append(sec.Notes, fmt.Sprintf("%d answer statements, %d reference statements", len(t.AnswerStatements), len(t.ReferenceStatements)))
	}
}

func factualHTML(r *eval.Result, sec *htmlSection) {
	t := r.FactualCorrectness
	if t == nil {
		return
	}
	sec.Notes = append(sec.Notes, t.ModeLine())
	claims := func(title string, vs []eval.StatementVerdict, yes, no string) htmlList {
		return listOf(title, vs, func(v eval.StatementVerdict) htmlItem {
			lead := no
			if v.Verdict == 1 {
				lead = yes
			}
			return judgedItem(v.Verdict == 1, lead, v.Statement, v.Reason)
		})
	}
	sec.Lists = append(sec.Lists, claims("answer claims checked against the reference", t.AnswerClaims, "TP", "FP"))
	if t.Mode == eval.FCModePrecision && len(t.ReferenceClaims) == 0 {
		sec.Notes = append(sec.Notes, "reference claims: not checked in precision mode")
	} else {
		sec.Lists = append(sec.Lists, claims("reference claims checked against the answer", t.ReferenceClaims, "ok", "FN"))
	}
}

func entityHTML(r *eval.Result, sec *htmlSection) {
	t := r.ContextEntityRecall
	if t == nil {
		return
	}
	sec.Lists = append(sec.Lists, listOf("reference entities", t.Reference, func(e eval.EntityMatch) htmlItem {
		lead, text := "missing", e.Entity
		if e.Found {
			lead = "found"
			if e.Match != "" && e.Match != e.Entity {
				text += "  (as \"" + e.Match + "\")"
			}
		}
		return judgedItem(e.Found, lead, text, "")
	}))
	sec.Notes = append(sec.Notes, fmt.Sprintf("context entities (%d): %s", len(t.Contexts), sanitize.Line(strings.Join(t.Contexts, "; "))))
}

func noiseHTML(r *eval.Result, sec *htmlSection) {
	t := r.NoiseSensitivity
	if t == nil {
		return
	}
	sec.Lists = append(sec.Lists, listOf("answer statements and the chunks that back them", t.Statements, func(s eval.NoiseStatement) htmlItem {
		line := t.Backing(s)
		if s.Noise != "" {
			line += "; noise: " + s.Noise
		}
		return judgedItem(s.Correct, "", s.Statement, line)
	}))
	rl := htmlList{Title: "reference statements: the chunks that entail them make those chunks relevant", None: len(t.ReferenceStatements) == 0}
	for i, s := range t.ReferenceStatements {
		where, any := t.Entailing(i)
		rl.Items = append(rl.Items, htmlItem{OK: any, Lead: fmt.Sprint(i + 1), Text: sanitize.Text(s), Reason: where})
	}
	sec.Lists = append(sec.Lists, rl)
}

// htmlCriterionSection is a criterion's part of a drill-down: its score
// or status, and its trace (draws, level, checklist items, matches).
func htmlCriterionSection(r *eval.Result, name string, levels report.Levels) htmlSection {
	m := eval.Metric(name)
	sec := htmlSection{Title: sanitize.Line(name)}
	passed := false
	if v, ok := r.Score(m); ok && r.Status[m] == eval.StatusOK {
		sec.Score, sec.Class = fmt.Sprintf("%.3f", v), bandClass(levels, m, v)
		passed = levels.Passes(m, v)
	} else if st, ok := r.Status[m]; ok {
		sec.Status, sec.StatusClass = sanitize.Line(show.StatusText(r, m)), "warn"
		if st.Failed() {
			sec.StatusClass = "fail"
		}
	}
	t := r.Criteria[name]
	if t == nil {
		return sec
	}
	if len(t.Draws) > 0 {
		yes := 0
		sec.Lists = append(sec.Lists, listOf("the judge's draws", t.Draws, func(d criteria.Draw) htmlItem {
			yes += d.Verdict
			it := judgedItem(d.Verdict == 1, map[bool]string{true: "yes", false: "no"}[d.Verdict == 1], d.Reason, "")
			it.Evidence = quoted(d.Quote)
			return it
		}))
		sec.Formula = append(sec.Formula, fmt.Sprintf("%d of %d draws say yes: the majority decides", yes, len(t.Draws)))
	}
	if t.Level != nil {
		line := fmt.Sprintf("level %d", *t.Level)
		if t.Description != "" {
			line += ": " + t.Description
		}
		sec.Notes = append(sec.Notes, sanitize.Line(line))
	}
	if len(t.Items) > 0 {
		passed := 0
		sec.Lists = append(sec.Lists, listOf("checklist", t.Items, func(it criteria.ItemVerdict) htmlItem {
			passed += it.Verdict
			hi := judgedItem(it.Verdict == 1, "", it.Item, it.Reason)
			hi.Evidence = quoted(it.Quote)
			return hi
		}))
		sec.Formula = append(sec.Formula, fmt.Sprintf("%d of %d items passed = %.3f", passed, len(t.Items), float64(passed)/float64(len(t.Items))))
	}
	if len(t.Matches) > 0 {
		sec.Lists = append(sec.Lists, listOf("matches", t.Matches, func(mt criteria.Match) htmlItem {
			note := ""
			if mt.InContext {
				note = "in a chunk too: allowed"
			}
			// A match is what passed a contains or regex, what failed a
			// not_contains or pii, unless a chunk holds it too.
			return htmlItem{OK: passed || mt.InContext, Lead: sanitize.Line(mt.What), Text: sanitize.Text(mt.Text), Note: note}
		}))
	}
	if t.Reason != "" {
		sec.Notes = append(sec.Notes, sanitize.Text(t.Reason))
	}
	if t.Quote != "" {
		sec.Notes = append(sec.Notes, sanitize.Text("quote: \""+t.Quote+"\""))
	}
	return sec
}
