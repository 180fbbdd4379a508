// Package tui is ragscope's terminal interface: one root model that holds
// the layout, the focus and the run's state; the table, the header, the
// detail page and the dialogs are plain components that render into it.
// It consumes the runner's event stream and never does I/O in Update.
package tui

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Options configure the interface: for `ragscope run` (Live), a run
// evaluated elsewhere (Live and Attached) and `ragscope open` (Summaries).
type Options struct {
	Dataset string
	Total   int // samples to evaluate (0 when unknown yet)
	Judge   eval.JudgeInfo
	Metrics []eval.Metric
	// Criteria are the run's own criteria (eval/criteria), in file order,
	// scored like metrics; CriteriaPass is each one's pass level.
	Criteria     []string
	CriteriaPass map[string]float64
	Levels       report.Levels // --pass, or those the run was recorded with
	ASCII        bool          // --ascii or RUNEWIDTH_EASTASIAN=1: no ambiguous-width glyphs
	Live         bool          // a run is in progress: q asks before quitting it
	// Attached is a live run another process runs: q leaves at once and
	// the run keeps going; X asks, then calls Cancel.
	Attached bool
	// QuitHelp, when set, is what the footer says q does to an Attached run.
	QuitHelp string
	Results  []*eval.Result
	// Summaries reads a stored run page by page, with only what a row
	// needs (as cache.DB.RunSummaries; next -1 after the last), for Load to
	// read the rest; fn may not keep the result it is given.
	Summaries func(from, limit int, fn func(*eval.Result) error) (next int, err error)
	// Load reads one sample's full result when it is opened; nil: every
	// result given or streamed is kept in memory.
	Load     func(index int) (*eval.Result, error)
	Started  time.Time
	RawCalls func(keys []string) (string, error) // renders raw judge calls for `x`; nil: no cache
	// RawCallsJSON gives the same calls as stored JSON, what y copies in
	// the raw view; nil: y copies the text.
	RawCallsJSON func(keys []string) ([]byte, error)
	// Cancel stops the live run: on quit, or for an Attached run on X, from
	// a command (it may take I/O). nil: the run cannot be stopped from here.
	Cancel func()
	Banner string // one line under the header
	// EndBanner replaces Banner once the live run ends, when it is set:
	// a banner about the run in progress ("q leaves it running") is then
	// untrue.
	EndBanner string
	// Skipped counts the dataset's records --skip-invalid left out: the
	// title says so beside the samples.
	Skipped int
	// KeyVar is the environment variable the judge's key was read from
	// (a profile's, whatever its name): the pager and the editor never
	// get it.
	KeyVar string
	RunID  string    // the run shown (the parent of a re-run)
	Host   Host      // prompt workflow; nil turns it off
	Labels LabelHost // human labels of judged items; nil turns labelling off
	// Limit says how the judge endpoint is holding back, "" when it is
	// not; read once a second while the run is live.
	Limit func() string
	// Watch makes the run screen follow a live log (watch.go). It is read
	// in Update once a second, so it must return a snapshot at once.
	Watch func() report.WatchStatus
	// Pricing prices the tokens the header counts; nil: no cost shown.
	Pricing *report.Pricing
	// First holds the run back until its cost is known (--confirm-over):
	// the run's events, Cancel and Started then come from First.Start.
	First *FirstRun
}

type screen int

const (
	screenTable screen = iota
	screenDetail
	screenRaw
	screenPrompts
	screenRuns
	screenBudget    // the cost of a run held back by --confirm-over
	screenAgreement // the judge against the human labels
)

// screenParts is a screen: how it draws, what its keys do and which keys
// it has.
type screenParts struct {
	render func(*Model) []string
	key    func(*Model, tea.KeyPressMsg) tea.Cmd
	mode   func(*Model) keyMode
}

// parts is a switch, as a table would refer to itself through its functions.
func (s screen) parts() screenParts {
	switch s {
	case screenDetail:
		return screenParts{(*Model).renderDetail, (*Model).detailKey, (*Model).detailMode}
	case screenRaw:
		return screenParts{(*Model).renderRaw, (*Model).rawKey, (*Model).rawMode}
	case screenPrompts:
		return screenParts{(*Model).renderPrompts, (*Model).promptsKey, (*Model).promptsMode}
	case screenRuns:
		return screenParts{(*Model).renderRuns, (*Model).runsKey, (*Model).pickerMode}
	case screenBudget:
		return screenParts{(*Model).renderBudget, (*Model).budgetKey, (*Model).budgetMode}
	case screenAgreement:
		return screenParts{(*Model).renderAgreement, (*Model).agreementKey, (*Model).agreementMode}
	}
	return screenParts{(*Model).renderTable, (*Model).tableKey, (*Model).tableMode}
}

// Minimum usable size; below it the screen says so.
const (
	minWidth  = 60
	minHeight = 15
)

// Model is the root model. It implements tea.Model.
type Model struct {
	opts  Options
	keys  keyMap
	st    styles
	g     glyphs
	help  help.Model
	now   func() time.Time
	input textinput.Model

	width, height int

	metrics  []eval.Metric
	columns  []eval.Metric // the metrics, then the criteria
	rows     []*row
	slab     rowSlab // where upsert takes new rows from
	extras   rowExtras
	byIndex  rowIndex
	full     results    // the few full results in memory
	whole    *wholeText // the filter's search of whole texts
	pace     report.Pace
	negative [eval.NumMetrics]bool // metrics some row scores below 0: wider columns
	loading  loadingState
	reading  bool // Options.Summaries is still filling the table
	running  int  // rows still being evaluated
	live     bool
	ended    time.Time    // when the run finished; zero while it runs
	clock    clockReading // as of the last tick: the title changes once a second

	progress    progress // the first run's; a re-run counts its own
	limit       string   // what Options.Limit said last
	notice      string   // the last EventNotice
	watchStatus report.WatchStatus
	trends      [eval.NumMetrics]*trend // watch mode's rolling means, by slot
	events      <-chan eval.Event       // the first run's stream
	send        func(tea.Msg)           // how Forward reaches the program

	sortKeys    []sortKey
	sortIdx     int
	desc        bool
	filter      *filter
	sorted      map[int]sorted // by sortIdx; dropped when rows change
	pageGiven   int            // results the store gave for a page not the last
	sortScratch sortScratch
	sortGen     int         // the times sorted was dropped
	presort     *presorting // order.go
	presorts    bool        // a presort was started for this table
	shown       []int32
	lines       []int32 // what the table draws: shown, or grouped by conversation
	convs       *convs  // nil without conversations
	statsFilter *filter // the filter the stats were computed for
	statsValid  bool
	stats       stats
	cursor      int       // position in lines
	offset      int       // first line on screen
	held        heldOrder // order.go

	// Deriving is amortised while events pour in (deriveEvery).
	dirty           bool
	deriveScheduled bool
	lastDerive      time.Time

	filterErr string
	bar       filterBar // the filter bar while it is open

	screen   screen
	mode     mode
	helpPage scrolled // the ? page, which a short terminal scrolls
	detail   detailView
	raw      rawView
	quitting bool

	// The prompt workflow (Host); ctx bounds the Host calls.
	ctx     context.Context
	runID   string
	status  statusLine
	prompts promptsView
	picker  runPicker
	ask     *question   // the y/n question of modeAsk
	rerun   *rerunState // the re-run in progress, nil when none
	cmp     *compareState
	editor  func(path string) (*exec.Cmd, error)
	exec    execFunc
	gen     int // tags the replies of Host calls: superseded ones are dropped

	lab   labelState     // labels.go
	first *firstRunState // the run held back by Options.First
}

// mode is what the keys mean: each but modeScreen owns the keyboard until
// it closes.
type mode int

const (
	modeScreen mode = iota // the screen's keys
	modeHelp               // the ? page of the screen
	modeFilter             // typing in the filter bar
	modeNote               // typing the note of a label
	modeAsk                // a y/n question (Model.ask) takes the next key
)

// shownMode is the mode drawn: under a question, the one it interrupted.
func (m *Model) shownMode() mode {
	if m.mode == modeAsk {
		return m.ask.resume
	}
	return m.mode
}

// New builds the model from the options.
func New(opts Options) *Model {
	// Metrics of a newer ragscope get no column; the banner says so.
	known, unknown := eval.KnownMetrics(opts.Metrics)
	if len(unknown) > 0 {
		note := fmt.Sprintf("this run also has %s, which this ragscope does not know: upgrade to see them", strings.Join(unknown, ", "))
		if opts.Banner != "" {
			note = opts.Banner + "; " + note
		}
		opts.Banner = note
	}
	m := &Model{
		opts:    opts,
		keys:    defaultKeys(),
		st:      paletteStyles(darkPalette),
		g:       unicodeGlyphs,
		help:    help.New(),
		now:     time.Now,
		live:    opts.Live,
		metrics: known,
		width:   80,
		height:  24,
		ctx:     context.Background(),
		editor:  defaultEditorCommand,
		exec:    tea.ExecProcess,
		runID:   opts.RunID,
		loading: loadingState{index: -1},
	}
	m.st.crit = newCritSet(opts.Criteria, opts.CriteriaPass)
	m.st.levels = m.st.crit.levels(opts.Levels)
	if len(m.metrics) == 0 {
		m.metrics = append([]eval.Metric(nil), eval.DefaultMetrics...)
	}
	m.columns = slices.Concat(m.metrics, m.st.crit.names)
	m.keys.metricCount(len(m.metrics))
	m.help.Styles = helpStyles(darkPalette)
	if opts.ASCII {
		m.g = asciiGlyphs
		m.keys.asciiHelp()
	}
	m.help.ShortSeparator, m.help.Ellipsis = m.g.sep, m.g.ellipsis
	m.sortKeys = sortKeys(m.columns, m.slotOf)
	m.desc = m.watchMode() // newest first
	m.pollWatch()
	m.input = textinput.New()
	m.input.Prompt = "/ "
	m.input.Placeholder = "f<0.5 ar<0.7 cp=0 status:failed diag:retrieval text"
	m.progress.total = opts.Total
	m.addStored(opts.Results)
	m.reading = opts.Summaries != nil
	m.progress.total = max(m.progress.total, len(m.rows))
	if opts.First != nil {
		// Not live until it starts: q leaves at once, with nothing to stop.
		m.first = &firstRunState{estimating: true}
		m.screen, m.live = screenBudget, false
	}
	m.syncRunKeys()
	m.derive()
	return m
}

// maxFPS only bounds how long a key waits for its frame: a live run's
// changes come every forwardEvery, and an unchanged view is not written.
const maxFPS = 120

// tuiGCPercent is low: the table hardly changes once loaded, so
// collections stay rare and the heap near the table's size.
const tuiGCPercent = 20

// reply is how a command that did I/O hands its outcome back: Update runs
// it, so it may change the model.
type reply func() tea.Cmd

// inCommand runs io in a command, off the UI goroutine, and hands what it
// returned to then, which Update runs.
func inCommand[T any](io func() (T, error), then func(T, error) tea.Cmd) tea.Cmd {
	return func() tea.Msg {
		v, err := io()
		return reply(func() tea.Cmd { return then(v, err) })
	}
}

type tickMsg time.Time
type deriveMsg struct{}

// deriveEvery bounds how often a large table is re-filtered and re-sorted
// while results stream in; a key press always derives at once.
const (
	deriveEvery     = 250 * time.Millisecond
	deriveEagerRows = 20000
)

// Init starts the first run's stream and the clock of a live run.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor} // it picks the palette
	if m.events != nil {
		cmds = append(cmds, m.stream(m.ctx, 0, m.events))
	}
	if m.reading {
		cmds = append(cmds, m.readPage(0))
	}
	cmds = append(cmds, m.loadMarks())
	if m.first != nil {
		cmds = append(cmds, m.estimateFirst())
	}
	if m.live {
		cmds = append(cmds, tick())
	}
	return tea.Batch(cmds...)
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update handles a message. It never blocks and never does I/O: the raw
// calls of `x` are fetched in a command.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	// A filter's text terms may have queued rows to search whole.
	if more := m.wholeTextCmd(); more != nil {
		cmd = tea.Batch(cmd, more)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case reply:
		return msg()
	case tea.BackgroundColorMsg:
		m.setBackground(msg.IsDark())
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.input.SetWidth(max(msg.Width-4, 10))
		m.clampTable()
		m.detail.invalidate()
		m.raw.lines = nil
	case EventsMsg:
		return m.applyEvents(msg)
	case streamClosedMsg:
		// The first run's end is its EventRunFinished; a stream that closes
		// without one (an attachment lost) says nothing about the run.
		if rr := m.rerun; msg.stream != 0 && rr != nil && rr.gen == msg.stream {
			m.finishRerun()
		}
	case deriveMsg:
		m.deriveScheduled = false
		if m.dirty {
			m.derive()
		}
	case tickMsg:
		if m.live {
			m.clock = m.clockNow()
			if m.opts.Limit != nil {
				m.limit = m.opts.Limit()
			}
			m.pollWatch()
			return tick()
		}
		m.limit = ""
	case storedPageMsg:
		return m.storedPageIn(msg)
	case presortedMsg:
		m.takePresort(true)
	// A re-run's replies; a superseded one is dropped.
	case planMsg, rerunStartedMsg:
		return m.rerunWorkflow(msg)
	case tea.MouseWheelMsg:
		return m.wheel(msg.Mouse())
	case tea.KeyPressMsg:
		return m.key(msg)
	default:
		if m.shownMode() == modeFilter {
			return m.editFilter(msg)
		}
	}
	return nil
}

func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

func (m *Model) quit() tea.Cmd {
	// An attached run is not ours to stop: leaving only stops watching.
	if m.live && !m.watching() && m.opts.Cancel != nil {
		m.opts.Cancel()
	}
	m.stopRerun()
	m.quitting = true
	return tea.Quit
}

// watching is an attached run in progress: q leaves it, X stops it.
func (m *Model) watching() bool { return m.opts.Attached && m.live }

// View renders the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	// A raw ESC or BEL in the title would end its OSC sequence.
	v.WindowTitle = "ragscope " + sanitize.Line(m.opts.Dataset)
	return v
}

func (m *Model) render() string {
	if m.quitting {
		return ""
	}
	if m.tooSmall() {
		return m.renderTooSmall()
	}
	draw := m.screen.parts().render
	if m.shownMode() == modeHelp {
		draw = (*Model).renderHelp
	}
	return strings.Join(fitLines(draw(m), m.width, m.height, m.g.ellipsis), "\n")
}

func (m *Model) renderTooSmall() string {
	by := "×"
	if m.opts.ASCII {
		by = "x"
	}
	msg := m.st.warn.Render("terminal too small") + "\n" +
		fmt.Sprintf("%d%s%d, need at least %d%s%d", m.width, by, m.height, minWidth, by, minHeight) +
		"\n" + m.st.muted.Render("q quits")
	return lipgloss.Place(max(m.width, 1), max(m.height, 1), lipgloss.Center, lipgloss.Center, msg)
}

// Run shows the interface until the user quits. events is the stream of
// the run shown, nil for a stored run. Nothing else may write to the
// terminal while Run is running.
func Run(ctx context.Context, opts Options, events <-chan eval.Event) error {
	// A terminal that draws ambiguous-width glyphs two cells wide would
	// misalign the box and block characters.
	if v := os.Getenv("RUNEWIDTH_EASTASIAN"); v == "1" || strings.EqualFold(v, "true") {
		opts.ASCII = true
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(tuiGCPercent))
	}
	m := New(opts)
	m.ctx = ctx
	m.events = events
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithFPS(maxFPS))
	m.send = p.Send
	_, err := p.Run()
	// A first run started from the cost page streams on m.events.
	if m.events != nil {
		events = m.events
	}
	if events != nil {
		// The runner must never block on a full channel, and Init's stream
		// may never have started; racing a Forward that did is harmless.
		go drain(events)
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// An attached run is watched, not owned: quitting leaves it running, and
// stopping it is a separate, confirmed act (X).

// syncRunKeys fits q's label and X to the run.
func (m *Model) syncRunKeys() {
	w := m.watching()
	m.keys.Stop.SetEnabled(w)
	help := "quit"
	if w {
		help = cmp.Or(m.opts.QuitHelp, "quit, run goes on")
	}
	m.keys.Quit.SetHelp("q", help)
}

// attachedRun names the attached run in messages.
func (m *Model) attachedRun() string {
	if m.opts.RunID == "" {
		return "the run"
	}
	return "run " + sanitize.Line(m.opts.RunID)
}

// askStop is X: the question, or why there is nothing to ask.
func (m *Model) askStop() {
	if m.refused(m.stopBlocked()) {
		return
	}
	m.askYesNo(&question{text: "Stop " + m.attachedRun() + "? It is running in another process. [y/n]", aboutRun: true,
		answer: onYes(m.stopAttached)})
}

// stopAttached is y to X: Cancel may reach another process, so it runs in
// a command.
func (m *Model) stopAttached() tea.Cmd {
	m.setStatus("asked " + m.attachedRun() + " to stop; it is shown until it ends")
	cancel := m.opts.Cancel
	return func() tea.Msg {
		cancel()
		return nil
	}
}
