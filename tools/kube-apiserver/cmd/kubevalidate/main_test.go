package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCheck: what kubevalidate prints for objects the API server accepts (defaulted), refuses (its
// message) and does not check.
func TestCheck(t *testing.T) {
	cases := []struct {
		name, in  string
		object    []string // substrings of the defaulted object
		refused   []string // substrings of the message
		unchecked bool
	}{
		{name: "pod defaulted", in: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox:1","resources":{"limits":{"cpu":"1"}}}]}}`,
			object: []string{`"requests":{"cpu":"1"}`, `"imagePullPolicy":"IfNotPresent"`, `"restartPolicy":"Always"`}},
		{name: "job defaulted", in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"ns"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"}],"restartPolicy":"Never"}}}}`,
			object: []string{`"parallelism":1`, `"completions":1`, `"backoffLimit":6`, `"podReplacementPolicy":"TerminatingOrFailed"`}},
		{name: "node allocatable", in: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"4"}}}`,
			object: []string{`"allocatable":{"cpu":"4"}`}},
		{name: "job without restartPolicy", in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}`,
			refused: []string{`Job.batch "j" is invalid`, `spec.template.spec.restartPolicy: Required value`}},
		{name: "request over limit", in: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}}}]}}`,
			refused: []string{`Pod "p" is invalid`, `must be less than or equal to cpu limit of 1`}},
		{name: "bad quantity", in: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"x"}}}]}}`,
			refused: []string{`cannot be handled as a Pod: quantities must match`}},
		{name: "bad name", in: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"Hi"},"value":3}`,
			refused: []string{`PriorityClass.scheduling.k8s.io "Hi" is invalid`, `metadata.name: Invalid value: "Hi"`}},
		{name: "generated name", in: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generateName":"d-"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"c"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`,
			refused: []string{`Deployment.apps "d-xxxxx" is invalid`, "`selector` does not match template `labels`"}},
		{name: "limit range", in: `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"l"},"spec":{"limits":[{"type":"Container","max":{"cpu":"1"},"min":{"cpu":"2"}}]}}`,
			refused: []string{`LimitRange "l" is invalid`, `min value 2 is greater than max value 1`}},
		{name: "a stored Job keeps its UID", in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","uid":"59761f86-c026-4d94-80ae-c6ad20a25507"},"spec":{"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"59761f86-c026-4d94-80ae-c6ad20a25507"}},"template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"59761f86-c026-4d94-80ae-c6ad20a25507","batch.kubernetes.io/job-name":"j","controller-uid":"59761f86-c026-4d94-80ae-c6ad20a25507","job-name":"j"}},"spec":{"containers":[{"name":"c","image":"x"}],"restartPolicy":"Never"}}}}`,
			object: []string{`"uid":"59761f86-c026-4d94-80ae-c6ad20a25507"`}},
		{name: "unknown field", in: `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"l"},"spec":{"bogus":1,"limits":[]}}`,
			refused: []string{`LimitRange in version "v1" cannot be handled as a LimitRange: strict decoding error: unknown field "spec.bogus"`}},
		{name: "null unknown field dropped, as kubectl does", in: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"p"},"value":2000000001,"bogus":null}`,
			refused: []string{`PriorityClass.scheduling.k8s.io "p" is invalid`, `maximum allowed value of a user defined priority`}},
		{name: "null known field", in: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","labels":null},"spec":null}`,
			object: []string{`"name":"n"`}},
		{name: "privileged container allowed, as --allow-privileged=true", in: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","securityContext":{"privileged":true}}]}}`,
			object: []string{`"privileged":true`}},
		{name: "a ConfigMap", in: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`, unchecked: true},
		{name: "not an object", in: `[1]`, unchecked: true},
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.in + "\n")
	}
	var out bytes.Buffer
	if err := run(strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("%d lines out for %d in:\n%s", len(lines), len(cases), out.String())
	}
	for i, c := range cases {
		var r result
		if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.unchecked != (r.Unchecked != "") || (len(c.refused) > 0) != (r.Refused != "") || (len(c.object) > 0) != (r.Object != nil) {
			t.Errorf("%s: %s", c.name, lines[i])
			continue
		}
		for _, s := range c.object {
			if !strings.Contains(string(r.Object), s) {
				t.Errorf("%s: no %s in %s", c.name, s, r.Object)
			}
		}
		for _, s := range c.refused {
			if !strings.Contains(r.Refused, s) {
				t.Errorf("%s: no %s in %s", c.name, s, r.Refused)
			}
		}
	}
}
