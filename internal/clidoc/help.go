// Package clidoc holds the documentation a cobra command tree gives of
// itself beyond fang's: help with the flags under headings, in fang's
// colours, and the manual page.
package clidoc

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"charm.land/fang/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// FlagGroup is a heading of a command's flags in its help.
type FlagGroup struct {
	Title string
	Flags []string
}

// groupedHelpKey marks a command whose help groupedHelp writes.
const groupedHelpKey = "ragscope.grouped-help"

// SetGroupedHelp gives cmd the help of groupedHelp.
func SetGroupedHelp(cmd *cobra.Command, groups []FlagGroup) {
	cmd.SetHelpFunc(groupedHelp(groups))
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[groupedHelpKey] = "1"
}

// FlagHelpEverywhere gives every command below root with flags the help
// of groupedHelp (its flags under "flags"): fang's own flag list title-cases
// the first word of a description (Openai-Compatible, Api key,
// Comma-Separated), ours capitalises its first letter only.
func FlagHelpEverywhere(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Annotations[groupedHelpKey] == "" && c.HasAvailableLocalFlags() {
			SetGroupedHelp(c, nil)
		}
		FlagHelpEverywhere(c)
	}
}

// groupedHelp is the help of a command with many flags: fang's help for
// its description, usage and examples (fang lists flags in one block),
// then the flags under their headings, in fang's colours. A flag in no
// group is listed last, under "flags".
func groupedHelp(groups []FlagGroup) func(*cobra.Command, []string) {
	return func(cmd *cobra.Command, args []string) {
		listed := visibleFlags(cmd.Flags())
		for _, f := range listed {
			f.Hidden = true
		}
		cmd.Root().HelpFunc()(cmd, args)
		for _, f := range listed {
			f.Hidden = false
		}
		w := colorprofile.NewWriter(cmd.OutOrStdout(), os.Environ())
		writeFlagGroups(w, helpStyles(w.Profile), groups, listed)
	}
}

type flagStyles struct {
	title, flag, desc, def lipgloss.Style
}

// helpStyles are fang's colours; the terminal is asked for its background
// only when colour will be shown.
func helpStyles(p colorprofile.Profile) flagStyles {
	dark := p > colorprofile.Ascii && term.IsTerminal(os.Stdout.Fd()) && lipgloss.HasDarkBackground(os.Stdin, os.Stdout)
	cs := fang.DefaultColorScheme(lipgloss.LightDark(dark))
	return flagStyles{
		title: lipgloss.NewStyle().Bold(true).Foreground(cs.Title).Transform(strings.ToUpper).Padding(1, 0).Margin(0, 2),
		flag:  lipgloss.NewStyle().Foreground(cs.Flag),
		desc:  lipgloss.NewStyle().Foreground(cs.Description),
		def:   lipgloss.NewStyle().Foreground(cs.FlagDefault),
	}
}

func writeFlagGroups(w io.Writer, st flagStyles, groups []FlagGroup, listed []*pflag.Flag) {
	byName := map[string]*pflag.Flag{}
	keyWidth := 0
	for _, f := range listed {
		byName[f.Name] = f
		keyWidth = max(keyWidth, len(flagName(f)))
	}
	rest := FlagGroup{Title: "flags"}
	for _, f := range listed {
		if !slices.ContainsFunc(groups, func(g FlagGroup) bool { return slices.Contains(g.Flags, f.Name) }) {
			rest.Flags = append(rest.Flags, f.Name)
		}
	}
	sections := append(slices.Clone(groups), rest)

	const indent, gap = 4, 3
	descWidth := max(helpWidth()-indent-keyWidth-gap, 30)
	first := true
	for _, g := range sections {
		var lines []string
		for _, name := range g.Flags {
			f, ok := byName[name]
			if !ok {
				continue
			}
			name := flagName(f)
			key := strings.Repeat(" ", indent) + st.flag.Render(name) + strings.Repeat(" ", keyWidth-len(name)+gap)
			desc := st.desc.Render(capitalise(f.Usage))
			if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" {
				desc += st.def.Render(" (" + d + ")")
			}
			lines = append(lines, lipgloss.JoinHorizontal(lipgloss.Top, key, lipgloss.NewStyle().Width(descWidth).Render(desc)))
		}
		if len(lines) == 0 {
			continue
		}
		title := st.title
		if first {
			title = title.PaddingTop(0) // fang's help ended with a blank line
			first = false
		}
		fmt.Fprintln(w, title.Render(g.Title))
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
	fmt.Fprintln(w)
}

// flagName is a flag as fang lists it: -h --help.
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand + " --" + f.Name
	}
	return "--" + f.Name
}

// helpWidth is fang's: the terminal's width up to 120 columns, 120 when
// stdout is not a terminal.
func helpWidth() int {
	w, _, err := term.GetSize(os.Stdout.Fd())
	if err != nil || w <= 0 {
		return 120
	}
	return min(w, 120)
}

// capitalise starts a flag's description with a capital, as fang shows
// the flags it lists.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// ManPage is the manual page of the command tree, as roff (man(7)): a
// subsection per command, every flag with its value name (--db FILE), and
// a title line that is no sentence, which man would crowd into the header.
func ManPage(root *cobra.Command, date time.Time) string {
	var b strings.Builder
	name := root.Name()
	fmt.Fprintf(&b, ".TH %s 1 %q %q %q\n", strings.ToUpper(name), date.Format("2006-01-02"), name, "User Commands")
	b.WriteString(".ad l\n") // ragged right: paths and flag values do not stretch the lines
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", name, roffText(root.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n.RI [ command ]\n.RI [ flags ]\n", name)
	b.WriteString(".SH DESCRIPTION\n")
	roffParagraphs(&b, root.Long)
	if flags := visibleFlags(root.Flags()); len(flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		roffFlags(&b, flags)
	}
	b.WriteString(".SH COMMANDS\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || !sub.IsAvailableCommand() && sub.Name() != "help" {
				continue
			}
			use := sub.CommandPath()
			if _, args, ok := strings.Cut(sub.Use, " "); ok {
				use += " " + args
			}
			fmt.Fprintf(&b, ".SS \"%s\"\n", roffText(strings.ReplaceAll(use, `"`, `'`)))
			roffParagraphs(&b, sub.Short)
			if sub.Long != "" {
				b.WriteString(".PP\n")
				roffParagraphs(&b, sub.Long)
			}
			if sub.Example != "" {
				b.WriteString(".PP\nExamples:\n.RS 4\n.nf\n")
				roffParagraphs(&b, sub.Example)
				b.WriteString(".fi\n.RE\n")
			}
			if flags := visibleFlags(sub.LocalFlags()); len(flags) > 0 {
				b.WriteString(".PP\nFlags:\n.RS 4\n")
				roffFlags(&b, flags)
				b.WriteString(".RE\n")
			}
			walk(sub)
		}
	}
	walk(root)
	return b.String()
}

// ManDate is the page's date: SOURCE_DATE_EPOCH when set (reproducible
// builds), else today.
func ManDate() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Now()
}

func visibleFlags(fs *pflag.FlagSet) []*pflag.Flag {
	var out []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f)
		}
	})
	return out
}

// roffFlags lists flags as tagged paragraphs: -h, --help; --db FILE.
func roffFlags(b *strings.Builder, flags []*pflag.Flag) {
	for _, f := range flags {
		tag := `\fB\-\-` + roffText(f.Name) + `\fR`
		if f.Shorthand != "" {
			tag = `\fB\-` + roffText(f.Shorthand) + `\fR, ` + tag
		}
		if v := valueName(f); v != "" {
			tag += ` \fI` + roffText(v) + `\fR`
		}
		b.WriteString(".TP\n" + tag + "\n")
		_, usage := pflag.UnquoteUsage(f)
		desc := capitalise(usage)
		if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" {
			desc += " (default " + d + ")"
		}
		b.WriteString(roffLine(desc) + "\n")
	}
}

// valueNames names the values of the flags whose type says too little.
var valueNames = map[string]string{
	"ac-weights": "W1,W2", "alert": "RULE", "alert-exec": "COMMAND", "api-key": "KEY", "api-type": "TYPE",
	"api-version": "VERSION", "base-url": "URL", "baseline": "FILE", "config": "FILE", "confirm-over": "USD",
	"datasets": "DIR", "db": "FILE", "embedding-base-url": "URL", "embedding-format": "FORMAT",
	"embedding-model": "MODEL", "fc-mode": "MODE", "format": "FORMAT", "judge": "JUDGE", "junit": "FILE",
	"lang": "LANG", "log": "FILE", "map": "FIELD=COLUMN,...", "sheet": "NAME|N", "metrics": "LIST", "model": "MODEL",
	"ns-mode": "MODE", "history-support": "WHAT", "older-than": "AGE", "out": "FILE", "prices": "FILE", "prompts": "DIR",
	"response-format": "FORMAT", "resume": "RUN", "run": "RUN", "max-failing": "N", "max-regressed": "N",
	"regress-margin": "X", "sample": "N", "temperature": "X",
}

// valueName is what a flag takes, "" for a switch: a name the usage
// quotes (`METRIC=X`) or whose type is one (pflag types are lower case),
// one of valueNames, or one by the flag's type.
func valueName(f *pflag.Flag) string {
	if f.NoOptDefVal != "" {
		return "" // a switch, or a value given only with =
	}
	name, _ := pflag.UnquoteUsage(f)
	if name != "" && !strings.Contains(name, " ") && strings.ToUpper(name) == name {
		return name
	}
	if v, ok := valueNames[f.Name]; ok {
		return v
	}
	if v, ok := typeValueNames[f.Value.Type()]; ok {
		return v
	}
	return "VALUE"
}

// typeValueNames name the values of a flag by its type ("": a switch).
var typeValueNames = map[string]string{
	"bool": "", "int": "N", "int64": "N", "uint": "N", "uint64": "N",
	"float64": "X", "float32": "X", "duration": "DURATION", "size": "SIZE",
}

// roffParagraphs writes text, its blank lines starting new paragraphs.
func roffParagraphs(b *strings.Builder, text string) {
	for i, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		for _, l := range strings.Split(p, "\n") {
			b.WriteString(roffLine(l) + "\n")
		}
	}
}

// roffLine is a line of text for roff: backslashes escaped, hyphens
// kept as typed, and a line starting with a control character (. or ')
// guarded.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}
