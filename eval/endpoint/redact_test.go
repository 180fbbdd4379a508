package endpoint

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
)

func TestRedactURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"https://gw.example.com/v1?api-key=sk-123&api-version=2024-06-01", "https://gw.example.com/v1?api-key=***&api-version=2024-06-01"},
		{"https://gw.example.com/v1?api-version=1&key=AIzaSyA", "https://gw.example.com/v1?api-version=1&key=***"},
		{"http://h/v1?token=t0k&access_token=a&refresh_token=r", "http://h/v1?token=***&access_token=***&refresh_token=***"},
		{"https://acct.blob.core.windows.net/c?sv=2022&sig=abc%2Fdef%3D&se=2026", "https://acct.blob.core.windows.net/c?sv=2022&sig=***&se=2026"},
		{"http://h/cb?code=xyz&state=s", "http://h/cb?code=***&state=s"},
		{"https://s3.example/o?X-Amz-Credential=AKIA&X-Amz-Signature=f00&X-Amz-Expires=60", "https://s3.example/o?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60"},
		{"http://h/#access_token=frag", "http://h/#access_token=***"},
		{"http://user:hunter2@proxy.local:8080/v1", "http://***@proxy.local:8080/v1"},
		{"https://sk-abc@h/v1?API_KEY=K", "https://***@h/v1?API_KEY=***"},
		// URLs inside an error message, as net/http quotes them.
		{`Post "http://127.0.0.1:9/v1?api-key=sk-live-1/chat/completions": dial tcp 127.0.0.1:9: connect: connection refused`,
			`Post "http://127.0.0.1:9/v1?api-key=***": dial tcp 127.0.0.1:9: connect: connection refused`},
		{"no URL here, just a & and a ?", "no URL here, just a & and a ?"},
		{"already redacted ?key=***", "already redacted ?key=***"},
	}
	for _, tc := range cases {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// secretJudge is the smallest eval.Judge whose statements step calls the
// client, so that the runner's events and report can be searched for leaks.
type secretJudge struct{ c *Client }

func (j secretJudge) Info() eval.JudgeInfo { return eval.JudgeInfo{Kind: "llm", Name: "leak test"} }
func (j secretJudge) Statements(ctx context.Context, s *eval.Sample) ([]string, error) {
	_, err := j.c.Chat(ctx, chatReq("faithfulness_statements"))
	return nil, err
}
func (j secretJudge) Verdicts(context.Context, *eval.Sample, []string) ([]eval.StatementVerdict, error) {
	return nil, nil
}
func (j secretJudge) Questions(context.Context, *eval.Sample, int) ([]eval.GeneratedQuestion, error) {
	return nil, nil
}
func (j secretJudge) ChunkVerdict(context.Context, *eval.Sample, int) (eval.ChunkVerdict, error) {
	return eval.ChunkVerdict{}, nil
}
func (j secretJudge) UtilizationVerdict(context.Context, *eval.Sample, int) (eval.ChunkVerdict, error) {
	return eval.ChunkVerdict{}, nil
}
func (j secretJudge) Classify(context.Context, *eval.Sample) ([]eval.Classification, error) {
	return nil, nil
}
func (j secretJudge) ReferenceStatements(context.Context, *eval.Sample) ([]string, error) {
	return nil, nil
}
func (j secretJudge) CorrectnessClassify(context.Context, *eval.Sample, []string, []string) (eval.CorrectnessClasses, error) {
	return eval.CorrectnessClasses{}, nil
}
func (j secretJudge) Entailment(context.Context, *eval.Sample, string, []string) ([]eval.StatementVerdict, error) {
	return nil, nil
}
func (j secretJudge) Entities(context.Context, *eval.Sample, string) ([]string, error) {
	return nil, nil
}
func (j secretJudge) Embed(context.Context, *eval.Sample, []string) ([][]float64, error) {
	return nil, nil
}

// TestSecretsNeverLeave: a key in the base URL's query string, userinfo,
// and the API key echoed by the server reach neither the error, nor the
// retry events, nor the report, on every path an error takes.
func TestSecretsNeverLeave(t *testing.T) {
	const (
		apiKey   = "sk-live-APIKEY-0123456789"
		urlKey   = "QUERYSECRET-42"
		password = "PASSWORD-77"
	)
	echo := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 500, Body: `{"error":{"message":"bad request from ` + r.Header.Get("Authorization") + ` to ` + r.Path + `"}}`}
	})
	defer echo.Close()
	// The key where the message is cut short: half of it must not stay.
	echoLong := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 400, Body: `{"error":{"message":"` + strings.Repeat("x", 490) + apiKey + `"}}`}
	})
	defer echoLong.Close()
	echoPage := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		return fakejudge.Reply{Status: 502, ContentType: "text/html", Body: "<html><body>Forbidden for key " + apiKey + " at " + r.Path + "</body></html>"}
	})
	defer echoPage.Close()
	// Hangs up on every request: the client's error is net/http's, which
	// quotes the whole URL.
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer hangup.Close()
	refused, err := fakejudge.ClosedURL()
	if err != nil {
		t.Fatal(err)
	}
	withSecrets := func(base string) string {
		return strings.Replace(base, "http://", "http://judge:"+password+"@", 1) + "?api-key=" + urlKey
	}
	cases := []struct{ name, base string }{
		{"the server echoes the key and the URL", withSecrets(echo.BaseURL())},
		{"an HTML page echoes the key", withSecrets(echoPage.BaseURL())},
		{"the key at the cut of a long message", withSecrets(echoLong.BaseURL())},
		{"the connection drops", withSecrets(hangup.URL + "/v1")},
		{"the connection is refused", withSecrets(refused)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, tc.base, Config{APIKey: apiKey, MaxRetries: 2})
			events := make(chan eval.Event, 100)
			var log bytes.Buffer
			done := make(chan struct{})
			go func() {
				for ev := range events {
					fmt.Fprintf(&log, "%+v %+v\n", ev, ev.Call)
				}
				close(done)
			}()
			r := &eval.Runner{Judge: secretJudge{c}, Config: eval.RunnerConfig{Metrics: []eval.Metric{eval.Faithfulness}}, Events: events}
			res := r.Run(context.Background(), []eval.Sample{{Question: "q?", Answer: "a", Contexts: []string{"c"}}})
			<-done
			var rep bytes.Buffer
			if err := report.NewReport(report.RunInfo{ID: "x", Metrics: []eval.Metric{eval.Faithfulness}}, res).WriteJSON(&rep); err != nil {
				t.Fatal(err)
			}
			_, callErr := c.Chat(context.Background(), chatReq("direct"))
			f := Classify(callErr)
			texts := map[string]string{"error": callErr.Error(), "events": log.String(), "report": rep.String(),
				"failure": f.Endpoint + " " + f.ServerMessage + " " + f.Hint}
			for name, text := range texts {
				for _, secret := range []string{apiKey, urlKey, password, apiKey[:12]} {
					if strings.Contains(text, secret) {
						t.Errorf("%s leaked into the %s: %s", secret, name, text)
					}
				}
			}
			if res[0].Status[eval.Faithfulness] != eval.StatusJudgeError || !strings.Contains(rep.String(), "faithfulness_statements: ") {
				t.Fatalf("the error did not surface: %+v", res[0])
			}
			t.Log(callErr)
		})
	}
}

// TestBaseURLQuery: a query in the base URL goes on every request, after
// the path, beside the query the client adds; glued to the base URL, the
// path would land inside the query's value.
func TestBaseURLQuery(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL()+"/?subscription-key=abc&region=eu", Config{})
	if _, err := c.Chat(context.Background(), chatReq("faithfulness_statements")); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Path; got != "/v1/chat/completions?region=eu&subscription-key=abc" {
		t.Fatalf("request to %s", got)
	}
}
