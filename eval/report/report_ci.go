package report

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/show"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// The reports for CI systems: JSON Lines for log pipelines, GitHub
// workflow commands, JUnit XML. Each streams its samples.

// WriteReportJSONL writes one compact JSON object per sample and line:
// the sample object of the JSON report ("diagnosis" included), as each
// yields it, diagnosed with levels.
func WriteReportJSONL(w io.Writer, levels Levels, each func(yield func(*eval.Result) error) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := newSampleEncoder(levels)
	err := each(func(r *eval.Result) error {
		b, err := enc.Encode(r)
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
		return show.WriteErr(bw)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// gitHubData escapes a workflow command's message as GitHub requires (a
// line break cannot start a command), then through sanitize.Line.
func gitHubData(s string) string { return sanitize.Line(githubData.Replace(s)) }

// gitHubProperty escapes a workflow command's property (title=...): as
// gitHubData, and : and , too, which end a property.
func gitHubProperty(s string) string { return sanitize.Line(githubProperty.Replace(s)) }

var (
	githubData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func githubCommand(w io.Writer, cmd, title, msg string) {
	fmt.Fprintf(w, "::%s title=%s::%s\n", cmd, gitHubProperty(title), gitHubData(msg))
}

// WriteReportGitHub writes GitHub Actions workflow commands: an error for
// each gate check that did not pass; per sample, an error for each score
// below its per-sample threshold (a warning while within --max-failing)
// and a warning for each metric that failed to score; last a notice with
// the means.
func WriteReportGitHub(w io.Writer, run RunInfo, summary map[eval.Metric]MetricSummary, outcome GateOutcome, each func(yield func(*eval.Result) error) error) error {
	gate := outcome.gate
	bw := bufio.NewWriterSize(w, 64<<10)
	below := "warning" // an error once the samples' check is breached
	for _, c := range outcome.Checks {
		if c.Kind == "samples" && c.Metric == "" && c.State == GateBreached {
			below = "error"
		}
		switch c.State {
		case GateBreached:
			githubCommand(bw, "error", "ragscope gate breached", c.Message)
		case GateCannot:
			githubCommand(bw, "error", "ragscope cannot gate", c.Message)
		}
	}
	err := each(func(r *eval.Result) error {
		for _, m := range run.Scored() {
			st, ok := r.Status[m]
			if !ok {
				continue
			}
			if st.Failed() {
				githubCommand(bw, "warning", fmt.Sprintf("%s %s: sample %s", m, st, sampleName(r)), failedText(r, m))
				continue
			}
			if min, low := gate.Below(r, m); low {
				v, _ := r.Score(m)
				_, breach := limitOps(m)
				githubCommand(bw, below, fmt.Sprintf("%s %.3f %s %g: sample %s", m, v, breach, min, sampleName(r)), failureText(r, m, min, "\n"))
			}
		}
		return show.WriteErr(bw)
	})
	if err != nil {
		return err
	}
	var means []string
	for _, m := range run.Scored() {
		ms := summary[m]
		means = append(means, fmt.Sprintf("%s %s (%d scored, %d failed)", m, show.Score(ms.Mean), ms.Scored, ms.Failed))
	}
	githubCommand(bw, "notice", "ragscope run "+run.ID, strings.Join(means, "; "))
	return bw.Flush()
}

// failureText says why a sample is below a per-sample threshold: its
// score, the threshold and the evidence (Evidence), joined by sep.
func failureText(r *eval.Result, m eval.Metric, min float64, sep string) string {
	v, _ := r.Score(m)
	side := "below"
	if eval.LowerIsBetter(m) {
		side = "above" // lower is better
	}
	lines := append([]string{fmt.Sprintf("sample %s (index %d): %s %.3f is %s %g", sampleName(r), r.Index, m, v, side, min)}, evidence(r, m)...)
	return strings.Join(lines, sep)
}

// failedText says why m failed to score on r: the error, else the status.
func failedText(r *eval.Result, m eval.Metric) string {
	return cmp.Or(r.Errors[m], string(r.Status[m]))
}

// WriteGateMarkdown writes the gate's outcome as a Markdown section (for
// the step summary of a CI job).
func WriteGateMarkdown(w io.Writer, o GateOutcome) error {
	var b strings.Builder
	b.WriteString("\n## Gate: ")
	if o.Passed() {
		b.WriteString("passed\n\n")
	} else {
		b.WriteString("FAILED\n\n")
	}
	for _, c := range o.Checks {
		fmt.Fprintf(&b, "- **%s**: %s\n", c.State, sanitize.Line(c.Message))
	}
	if lines := o.WorstLines(); len(lines) > 0 {
		b.WriteString("\nWorst samples below the per-sample thresholds:\n\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", mdCell(show.Clip(l, 300)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// xmlClean makes s text XML 1.0 allows, shown as the other reports show
// it (multi keeps newlines and tabs); U+FFFE and U+FFFF, which XML
// forbids, show as <U+FFFE>.
func xmlClean(s string, multi bool) string {
	if multi {
		s = sanitize.Text(s)
	} else {
		s = sanitize.Line(s)
	}
	if !strings.ContainsAny(s, "\uFFFE\uFFFF") {
		return s
	}
	return strings.NewReplacer("\uFFFE", "<U+FFFE>", "\uFFFF", "<U+FFFF>").Replace(s)
}

// The JUnit elements, as the Jenkins JUnit schema (and the Ant one it
// extends) has them.
type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// junitMessageRunes bounds a failure's message attribute; the element's
// text has the whole of it.
const junitMessageRunes = 1000

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

func attr(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }

// WriteReportJUnit writes a run as JUnit XML: a testsuite per metric with
// a testcase per sample (a failure below the per-sample threshold, an
// error when the metric failed to score, skipped when it does not apply),
// then a testsuite "ragscope.gate" with a testcase per gate check. The
// counts come from the first pass (summary, gt); each is walked once per
// metric, so nothing is held.
func WriteReportJUnit(w io.Writer, run RunInfo, summary map[eval.Metric]MetricSummary, gt *GateTally, outcome GateOutcome, each func(yield func(*eval.Result) error) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	gate := gt.Gate()
	stamp := run.StartedAt.UTC().Format("2006-01-02T15:04:05")
	var tests, failures, errors int
	var total float64
	for _, m := range run.Scored() {
		ms := summary[m]
		tests += ms.Scored + ms.Failed + ms.NotApplicable
		failures += gt.BelowCount(m)
		errors += ms.Failed
		total += gt.LatencySeconds(m)
	}
	var gFail, gErr int
	for _, c := range outcome.Checks {
		switch c.State {
		case GateBreached:
			gFail++
		case GateCannot:
			gErr++
		}
	}
	tests += len(outcome.Checks)
	failures += gFail
	errors += gErr
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		attr("name", xmlClean("ragscope "+run.ID, false)), attr("tests", strconv.Itoa(tests)),
		attr("failures", strconv.Itoa(failures)), attr("errors", strconv.Itoa(errors)), attr("time", seconds(total)),
	}}
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	testsuite := func(name string, tests, failures, errors, skipped int, time float64, id int) xml.StartElement {
		return xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{
			attr("name", name), attr("tests", strconv.Itoa(tests)), attr("failures", strconv.Itoa(failures)), attr("errors", strconv.Itoa(errors)),
			attr("skipped", strconv.Itoa(skipped)), attr("time", seconds(time)), attr("timestamp", stamp), attr("id", strconv.Itoa(id)),
		}}
	}
	for id, m := range run.Scored() {
		ms := summary[m]
		suite := testsuite(string(m), ms.Scored+ms.Failed+ms.NotApplicable, gt.BelowCount(m), ms.Failed, ms.NotApplicable, gt.LatencySeconds(m), id)
		if err := enc.EncodeToken(suite); err != nil {
			return err
		}
		err := each(func(r *eval.Result) error {
			st, ok := r.Status[m]
			if !ok {
				return nil
			}
			var lat int64
			for _, c := range r.Calls {
				if c.MetricOf() == m {
					lat += c.LatencyMS
				}
			}
			tc := junitCase{Name: xmlClean(sampleName(r), false), Classname: string(m), Time: seconds(float64(lat) / 1000)}
			switch {
			case st.Failed():
				msg := failedText(r, m)
				tc.Error = &junitProblem{Message: xmlClean(show.Clip(msg, junitMessageRunes), false), Type: string(st), Text: xmlClean(msg, true)}
			case st != eval.StatusOK:
				// Not applicable, or not computable by this judge: skipped, with the reason.
				tc.Skipped = &junitSkipped{Message: xmlClean(show.Clip(show.StatusText(r, m), junitMessageRunes), false)}
			default:
				if min, low := gate.Below(r, m); low {
					tc.Failure = &junitProblem{
						Message: xmlClean(show.Clip(failureText(r, m, min, "; "), junitMessageRunes), false),
						Type:    "below_threshold", Text: xmlClean(failureText(r, m, min, "\n"), true),
					}
				}
			}
			if err := enc.Encode(tc); err != nil {
				return err
			}
			return show.WriteErr(bw)
		})
		if err != nil {
			return err
		}
		if err := enc.EncodeToken(suite.End()); err != nil {
			return err
		}
	}
	suite := testsuite("ragscope.gate", len(outcome.Checks), gFail, gErr, 0, 0, len(run.Scored()))
	if err := enc.EncodeToken(suite); err != nil {
		return err
	}
	for _, c := range outcome.Checks {
		pass, _ := limitOps(c.Metric)
		name := fmt.Sprintf("%s mean %s %g", c.Metric, pass, c.Threshold)
		class := "ragscope.gate." + string(c.Metric)
		switch c.Kind {
		case "samples":
			name = "samples below the per-sample thresholds <= --max-failing " + gate.MaxFailing.String()
			class = "ragscope.gate.samples"
			if c.Metric != "" {
				name = fmt.Sprintf("%s per sample %s %g", c.Metric, pass, c.Threshold)
			}
		case checkConversation:
			name = fmt.Sprintf("%s every turn of each conversation %s %g", c.Metric, pass, c.Threshold)
			class = "ragscope.gate.conversation." + string(c.Metric)
		case checkBaselineMean:
			name = fmt.Sprintf("%s mean drop from the baseline <= %g", c.Metric, c.Threshold)
			if eval.LowerIsBetter(c.Metric) {
				name = fmt.Sprintf("%s mean rise from the baseline <= %g", c.Metric, c.Threshold)
			}
			class = "ragscope.gate.baseline." + string(c.Metric)
		case checkBaselineSamples:
			name = fmt.Sprintf("samples fallen by more than %g from the baseline <= --max-regressed %s", c.Threshold, gate.Baseline.MaxRegressed)
			class = "ragscope.gate.baseline.samples"
			if c.Metric != "" {
				name = fmt.Sprintf("%s scored on enough samples to compare with the baseline", c.Metric)
			}
		}
		tc := junitCase{Name: name, Classname: class, Time: seconds(0)}
		switch c.State {
		case GateBreached:
			tc.Failure = &junitProblem{Message: xmlClean(c.Message, false), Type: "gate_breached", Text: xmlClean(c.Message, true)}
		case GateCannot:
			tc.Error = &junitProblem{Message: xmlClean(c.Message, false), Type: "cannot_gate", Text: xmlClean(c.Message, true)}
		}
		if err := enc.Encode(tc); err != nil {
			return err
		}
	}
	if err := enc.EncodeToken(suite.End()); err != nil {
		return err
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}
