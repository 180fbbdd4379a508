// Package clidoc holds the documentation a cobra command tree gives of
// itself beyond fang's: help with the flags under headings, in fang's
// colours, and the manual page.
package clidoc

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
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
		var listed []*pflag.Flag
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				f.Hidden = true
				listed = append(listed, f)
			}
		})
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
