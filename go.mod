module github.com/ragscope/ragscope

go 1.26.8

require (
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
