package endpoint

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// EndpointProfile is what is known of an endpoint and model's abilities:
// the structured-output format it takes, whether it honours n, which
// reasoning switches it refuses, and whether its replies reason. A run
// finds these out from the first refusals, says so once, records them with
// the run and remembers them per base URL and model, so that the next run
// starts right. The JSON form is what is remembered.
type EndpointProfile struct {
	// Format is the best response format the endpoint takes: json_schema
	// (also when unknown), json_object or text.
	Format string `json:"response_format,omitempty"`
	// FormatRefused is the server's words when it refused a better format.
	FormatRefused string `json:"format_refused,omitempty"`
	// NIgnored: a reply had fewer choices than n asked.
	NIgnored bool `json:"n_ignored,omitempty"`
	// SwitchRefused lists the request fields the server refused: the
	// reasoning switches (with the value for reasoning_effort:
	// "reasoning_effort=none"), and temperature and n, which OpenAI's
	// reasoning models take only at their defaults; "stream_only_thinking"
	// is a model that thinks unless told not to and may not in a call
	// without streaming (DashScope's Qwen3), which is sent enable_thinking
	// false; "non_streaming" one that answers only when streaming (QwQ).
	SwitchRefused []string `json:"switch_refused,omitempty"`
	// Reasons: replies came with reasoning (a separate field or <think>).
	Reasons bool `json:"reasons,omitempty"`
	// ReasoningShare is the share of the completion tokens spent
	// reasoning, over the replies measured (the server's
	// reasoning_tokens, else the reasoning's share of the text).
	ReasoningShare float64 `json:"reasoning_share,omitempty"`
}

// Notice is the one line that tells the user what differs from a server
// that takes everything, e.g. "json_object (json_schema refused), n not
// honoured"; "" when nothing does.
func (p EndpointProfile) Notice() string {
	var parts []string
	switch p.Format {
	case "json_object":
		parts = append(parts, "json_object (json_schema refused)")
	case "text":
		parts = append(parts, "text with the schema in the prompt (json_schema and json_object refused)")
	}
	if p.NIgnored {
		parts = append(parts, "n not honoured")
	}
	if p.Reasons {
		parts = append(parts, "reasoning model (reasoning kept apart)")
	}
	for _, sw := range p.SwitchRefused {
		if what, ok := neededNotRefused[sw]; ok {
			parts = append(parts, what)
		}
	}
	if refused := p.RefusedFields(); len(refused) > 0 {
		parts = append(parts, "refused "+strings.Join(refused, ", "))
	}
	return strings.Join(parts, ", ")
}

// RefusedFields are the request fields the server refused: SwitchRefused
// less what the calls do because of a refusal (stream, enable_thinking
// false).
func (p EndpointProfile) RefusedFields() []string {
	return slices.DeleteFunc(slices.Clone(p.SwitchRefused), func(sw string) bool {
		_, needed := neededNotRefused[sw]
		return needed
	})
}

// ReasoningSwitches are the request fields --reasoning off and on send,
// each server family's, in the order they are sent.
var ReasoningSwitches = []string{"enable_thinking", "thinking", "chat_template_kwargs", "reasoning_effort"}

// neededNotRefused are the entries of SwitchRefused that say what the
// calls do because of a refusal, not a field they leave out.
var neededNotRefused = map[string]string{
	"stream_only_thinking": "enable_thinking false (the model thinks only when streaming)",
	"non_streaming":        "streamed (the model answers only when streaming)",
}

// Abilities is an EndpointProfile shared by the calls of a run, which
// update it as they learn. Its methods are safe for concurrent use.
type Abilities struct {
	mu sync.Mutex
	p  EndpointProfile
	// fixedFormat: the user chose the format (--response-format); it is
	// never changed, and never remembered as the endpoint's.
	fixedFormat bool
	changed     bool
	// remembered is the profile the run started from.
	remembered EndpointProfile
	// reasoned and completed are the sizes behind ReasoningShare.
	reasoned, completed float64
}

// NewAbilities starts from a remembered profile. format, when not "",
// is the user's choice and overrides what was remembered.
func NewAbilities(remembered EndpointProfile, format string) *Abilities {
	remembered.SwitchRefused = slices.Clone(remembered.SwitchRefused)
	a := &Abilities{p: remembered, remembered: remembered}
	if remembered.ReasoningShare > 0 {
		// What earlier runs measured weighs as much as a few replies.
		a.reasoned, a.completed = 4*remembered.ReasoningShare, 4
	}
	if format != "" {
		a.p.Format, a.fixedFormat = format, true
	}
	a.p.Format = cmp.Or(a.p.Format, "json_schema")
	return a
}

// read returns f of the abilities, under their lock.
func read[T any](a *Abilities, f func(a *Abilities) T) T {
	a.mu.Lock()
	defer a.mu.Unlock()
	return f(a)
}

// update applies f, which reports whether it changed the profile, and
// returns that.
func (a *Abilities) update(f func(p *EndpointProfile) bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	changed := f(&a.p)
	a.changed = a.changed || changed
	return changed
}

// learn sets the flag of the profile that flag points to; true when that
// is news.
func (a *Abilities) learn(flag func(p *EndpointProfile) *bool) bool {
	return a.update(func(p *EndpointProfile) bool {
		f := flag(p)
		news := !*f
		*f = true
		return news
	})
}

// Notice is the line that tells the user what the run found out, for
// ReportNotice after a change.
func (a *Abilities) Notice() string {
	return "endpoint: " + a.Profile().Notice()
}

func (a *Abilities) snapshot() EndpointProfile {
	p := a.p
	p.SwitchRefused = slices.Clone(a.p.SwitchRefused)
	return p
}

// Profile is the profile now.
func (a *Abilities) Profile() EndpointProfile { return read(a, (*Abilities).snapshot) }

// ToRemember is the profile to remember for the next run: the profile now,
// but the format the endpoint was known to take when the user fixed one
// (--response-format says what this run sent, not what the endpoint can).
func (a *Abilities) ToRemember() EndpointProfile {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.snapshot()
	if a.fixedFormat {
		p.Format, p.FormatRefused = a.remembered.Format, a.remembered.FormatRefused
	}
	return p
}

// Changed reports whether the run learned anything.
func (a *Abilities) Changed() bool { return read(a, func(a *Abilities) bool { return a.changed }) }

// Format is the response format to send.
func (a *Abilities) Format() string { return read(a, func(a *Abilities) string { return a.p.Format }) }

// formatLadder is the order formats are tried in.
var formatLadder = []string{"json_schema", "json_object", "text"}

// Downgrade records that the endpoint refused format and returns the next
// format to try. ok is false when there is none, or when the user fixed the
// format; changed is true when this call moved the profile. A call that was
// sent with an older format than the profile's now simply retries with the
// current one.
func (a *Abilities) Downgrade(format, message string) (next string, ok, changed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.Index(formatLadder, format)
	switch {
	case a.fixedFormat:
		return "", false, false
	case a.p.Format != format:
		return a.p.Format, true, false // another call downgraded already
	case i < 0 || i+1 >= len(formatLadder):
		return "", false, false
	}
	a.p.Format, a.p.FormatRefused, a.changed = formatLadder[i+1], message, true
	return a.p.Format, true, true
}

// NHonoured reports whether n may be sent.
func (a *Abilities) NHonoured() bool {
	return read(a, func(a *Abilities) bool { return !a.p.NIgnored })
}

// IgnoredN records a reply with fewer choices than n asked; true when
// that is news.
func (a *Abilities) IgnoredN() bool {
	return a.learn(func(p *EndpointProfile) *bool { return &p.NIgnored })
}

// Refused reports whether the server refused a reasoning switch.
func (a *Abilities) Refused(sw string) bool {
	return read(a, func(a *Abilities) bool { return slices.Contains(a.p.SwitchRefused, sw) })
}

// Refuse records a reasoning switch the server refused; true when that is
// news.
func (a *Abilities) Refuse(sw string) bool {
	return a.update(func(p *EndpointProfile) bool {
		if slices.Contains(p.SwitchRefused, sw) {
			return false
		}
		p.SwitchRefused = append(p.SwitchRefused, sw)
		slices.Sort(p.SwitchRefused)
		return true
	})
}

// MeasureReasoning adds a reply's reasoning and completion sizes (tokens,
// or bytes of text) to the running share; it is no news to say.
func (a *Abilities) MeasureReasoning(reasoning, completion int) {
	if completion <= 0 || reasoning < 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reasoned += float64(min(reasoning, completion))
	a.completed += float64(completion)
	a.p.ReasoningShare = a.reasoned / a.completed
	// Worth remembering when it moved, not after every reply.
	if d := a.p.ReasoningShare - a.remembered.ReasoningShare; d > 0.01 || d < -0.01 {
		a.changed = true
	}
}

// SawReasoning records a reply that came with reasoning; true when that is
// news.
func (a *Abilities) SawReasoning() bool {
	return a.learn(func(p *EndpointProfile) *bool { return &p.Reasons })
}
