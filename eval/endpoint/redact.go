package endpoint

import (
	"regexp"
	"slices"
	"strings"
)

// A base URL may carry a credential: Azure SAS signatures, gateways that take
// ?api-key= or ?token=, a user:password@ for a basic-auth proxy. Go's
// url.Error quotes the whole URL (it strips a password, never a query), so a
// refused connection would carry the key into the database, the report and
// the log. Errors are text by then, so redaction works on text.

var (
	// A query or fragment parameter: ?name=value, &name=value, #name=value.
	paramRE = regexp.MustCompile(`([?&#;])([A-Za-z0-9_.\-\[\]]+)=([^&#;\s"'<>` + "`" + `]*)`)
	// The userinfo of a URL: scheme://user:pass@host.
	userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)[^/@\s"'<>` + "`" + `]+@`)
)

// secretWords are the parts of a parameter name that say its value is a
// credential; exactSecrets are names too short or common to search for
// inside other names.
var (
	secretWords  = []string{"key", "token", "secret", "signature", "password", "passwd", "credential", "auth", "session", "jwt"}
	exactSecrets = map[string]bool{"sig": true, "code": true, "pwd": true, "pass": true, "sas": true}
)

// nameSeparators are dropped from a parameter's name before it is looked at.
var nameSeparators = strings.NewReplacer("-", "", "_", "", ".", "", "[", "", "]", "")

func secretParam(name string) bool {
	n := nameSeparators.Replace(strings.ToLower(name))
	return exactSecrets[n] || slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(n, w) })
}

// RedactURL hides credentials in a URL, or in any text that quotes URLs (an
// error message): the userinfo, and the value of every query or fragment
// parameter whose name looks like a credential (api-key, key, token,
// access_token, sig, code, password, X-Amz-Signature ...), each becomes ***.
// Other parameters (api-version) stay: they help to diagnose.
func RedactURL(s string) string {
	if !strings.ContainsAny(s, "?&#;@") {
		return s
	}
	s = userinfoRE.ReplaceAllString(s, "${1}***@")
	return paramRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := paramRE.FindStringSubmatch(m)
		if !secretParam(sub[2]) || sub[3] == "" || sub[3] == "***" {
			return m
		}
		return sub[1] + sub[2] + "=***"
	})
}

// redact is applied to every message this package lets out: credentials in
// URLs, and the configured key, which some servers echo in their errors.
func (c *Client) redact(s string) string {
	s = RedactURL(s)
	if c.cfg.APIKey != "" {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "***")
	}
	return s
}
