package tui

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// contrast is the WCAG 2 contrast ratio of two colours, from 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is WCAG 2's relative luminance of an sRGB colour.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// Each palette's text colours must stay readable on the backgrounds
// terminals ship with. 3:1 is WCAG's floor for large text and interface
// components, which is what a terminal's bold, spaced-out marks are; the
// marks (✓ ! ✗) and words carry the meaning where colour fails.
func TestPaletteContrast(t *testing.T) {
	const minContrast = 3.0
	hex := func(s string) color.Color { return lipgloss.Color(s) }
	tests := []struct {
		name        string
		p           palette
		backgrounds []color.Color
	}{
		// black, VS Code dark, One Dark, Solarized dark, Dracula
		{"dark", darkPalette, []color.Color{hex("#000000"), hex("#1e1e1e"), hex("#282c34"), hex("#002b36"), hex("#282a36")}},
		// white, Solarized light, GNOME light, a grey "paper" theme
		{"light", lightPalette, []color.Color{hex("#ffffff"), hex("#fdf6e3"), hex("#f6f5f4"), hex("#eeeeee")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := map[string]color.Color{"ok": tt.p.ok, "warn": tt.p.warn, "fail": tt.p.fail, "muted": tt.p.muted, "accent": tt.p.accent}
			for name, c := range text {
				for _, bg := range tt.backgrounds {
					if r := contrast(c, bg); r < minContrast {
						t.Errorf("%s %v on %v: contrast %.2f, want >= %.1f", name, c, bg, r, minContrast)
					}
				}
			}
			if r := contrast(tt.p.selFg, tt.p.selBg); r < minContrast {
				t.Errorf("selection text on the selection: contrast %.2f, want >= %.1f", r, minContrast)
			}
		})
	}
	d, l := darkPalette, lightPalette
	for name, pair := range map[string][2]color.Color{"ok": {d.ok, l.ok}, "warn": {d.warn, l.warn}, "fail": {d.fail, l.fail},
		"muted": {d.muted, l.muted}, "accent": {d.accent, l.accent}, "selection": {d.selBg, l.selBg}} {
		if pair[0] == pair[1] {
			t.Errorf("%s is the same colour on light and dark backgrounds", name)
		}
	}
}

// fgSGR is how a 256-colour foreground appears in the rendered frame
// (after any attribute in the same sequence: "1;38;5;203m").
func fgSGR(c color.Color) string {
	s := lipgloss.NewStyle().Foreground(c).Render("x")
	return strings.TrimPrefix(s[:strings.Index(s, "x")], "\x1b[")
}

func TestBackgroundColorPicksThePalette(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 100, 40)
	if !hasMsgType(m.Init(), "tea.backgroundColorMsg") {
		t.Fatal("Init does not ask the terminal for its background")
	}
	press(m, "enter") // the detail page: cached lines, rendered with the styles of the time
	if s := m.View().Content; !strings.Contains(s, fgSGR(darkPalette.fail)) {
		t.Fatalf("before any reply the page is not in the dark palette:\n%q", s)
	}
	tests := []struct {
		name      string
		bg        color.Color
		want, not palette
	}{
		{"a light background", color.White, lightPalette, darkPalette},
		{"a dark one again", color.RGBA{0x1e, 0x1e, 0x1e, 0xff}, darkPalette, lightPalette},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.Update(tea.BackgroundColorMsg{Color: tt.bg})
			s := m.View().Content
			if !strings.Contains(s, fgSGR(tt.want.fail)) || strings.Contains(s, fgSGR(tt.not.fail)) {
				t.Fatalf("the unsupported statements are not in the %s palette:\n%q", tt.name, s)
			}
			if got := m.st.selected.GetBackground(); got != tt.want.selFg {
				t.Fatalf("selection %v, want %v", got, tt.want.selFg)
			}
		})
	}
}

// hasMsgType runs cmd (and a batch's commands) and reports whether one of
// them produces a message of the named type.
func hasMsgType(cmd tea.Cmd, name string) bool {
	if cmd == nil {
		return false
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if hasMsgType(c, name) {
				return true
			}
		}
		return false
	}
	return fmt.Sprintf("%T", msg) == name
}
