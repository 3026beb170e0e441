package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// each is a command's --each: every path is a cluster of its own, decided in turn in this process
// (the feature gates set back before each, resetGates); one JSON object per line, in the order of
// the paths, with its path (`named`), and an error instead of the answer where that path could not
// be decided: the others still are (exit 2 then).
func each[T any](command string, paths []string, decide func(path string) (T, error), named func(*T, string)) int {
	code := 0
	enc := json.NewEncoder(os.Stdout)
	initial := gateValues()
	for _, path := range paths {
		resetGates(initial)
		out, err := decide(path)
		var line any
		if err != nil {
			code = 2
			fmt.Fprintf(os.Stderr, "kueue-oracle %s: %s: %v\n", command, path, err)
			line = eachError{Path: path, Error: err.Error()}
		} else {
			named(&out, path)
			line = out
		}
		if err := enc.Encode(line); err != nil {
			fmt.Fprintf(os.Stderr, "kueue-oracle %s: %v\n", command, err)
			return 2
		}
	}
	return code
}

// eachError is --each's line for a path that could not be decided.
type eachError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}
