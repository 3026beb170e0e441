package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"sigs.k8s.io/yaml"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	configv1beta1 "sigs.k8s.io/kueue/apis/config/v1beta1"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	"sigs.k8s.io/kueue/pkg/config"
	"sigs.k8s.io/kueue/pkg/features"
	"sigs.k8s.io/kueue/pkg/util/tlsconfig"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
)

func init() {
	register("config", "load each file as Kueue's manager loads its --config file (JSON line per file), or --types", runConfig)
	register("yaml2json", "each file's YAML documents as sigs.k8s.io/yaml.YAMLToJSON converts them (JSON line per document)", runYAMLToJSON)
}

// configLine is `config`'s line for one file: the Configuration Kueue's manager runs with, or the
// error it exits with.
type configLine struct {
	Path          string                   `json:"path"`
	Error         string                   `json:"error,omitempty"`
	Configuration *configapi.Configuration `json:"configuration,omitempty"`
}

func runConfig(args []string) int {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	types := fs.Bool("types", false, "print the Go types Kueue decodes each Configuration version into")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if *types {
		out := map[string]*goType{
			"v1beta1": typeTree(reflect.TypeOf(configv1beta1.Configuration{}), map[reflect.Type]bool{}),
			"v1beta2": typeTree(reflect.TypeOf(configapi.Configuration{}), map[reflect.Type]bool{}),
		}
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(os.Stderr, "kueue-oracle config:", err)
			return 2
		}
		return 0
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: kueue-oracle config FILE... | --types")
		return 2
	}
	scheme := objects.NewScheme()
	initial := gateValues()
	for _, path := range fs.Args() {
		line := configLine{Path: path}
		cfg, err := loadAsMain(scheme, path)
		if err != nil {
			line.Error = err.Error()
		} else {
			line.Configuration = cfg
		}
		resetGates(initial)
		if err := enc.Encode(line); err != nil {
			fmt.Fprintln(os.Stderr, "kueue-oracle config:", err)
			return 2
		}
	}
	return 0
}

// loadAsMain is cmd/kueue/main.go's start, up to the first thing that needs a cluster: the file
// loaded (config.Load: strict decoding, conversion from v1beta1, defaults, validation), the
// feature gates checked and set from the Configuration (no --feature-gates flag), and its TLS
// options parsed when the TLSOptions gate is on. The error is the one main logs before it exits.
func loadAsMain(scheme *runtime.Scheme, path string) (*configapi.Configuration, error) {
	_, cfg, err := config.Load(scheme, path)
	if err != nil {
		return nil, err
	}
	if err := config.ValidateFeatureGates("", cfg.FeatureGates).ToAggregate(); err != nil {
		return nil, err
	}
	if err := setConfigurationGates(cfg.FeatureGates); err != nil {
		return nil, err
	}
	if features.Enabled(features.TLSOptions) {
		if _, err := tlsconfig.ParseTLSOptions(cfg.TLS); err != nil {
			return nil, err
		}
	}
	return &cfg, nil
}

// goType is one Go type as encoding/json decodes into it: its reflect name (what Go's errors
// print), how it decodes, and what it holds.
type goType struct {
	Type   string             `json:"type"`             // reflect.Type.String(), e.g. "*v1beta2.FairSharing" without the "*"
	Decode string             `json:"decode"`           // bool, string, int, uint, float, struct, slice, map, bytes, any, or unmarshaler:PKG.NAME
	Bits   int                `json:"bits,omitempty"`   // of an int, uint or float
	Name   string             `json:"name,omitempty"`   // a struct's name (the Struct of Go's errors)
	Fields map[string]*goType `json:"fields,omitempty"` // a struct's, by JSON name (inlined structs' fields included)
	Elem   *goType            `json:"elem,omitempty"`   // a slice's item, a map's value
	Key    string             `json:"key,omitempty"`    // a map's key type
	Null   string             `json:"null,omitempty"`   // "unmarshal": a null reaches the unmarshaler (not a pointer)
	Via    []string           `json:"via,omitempty"`    // a struct field's: the embedded structs it is promoted through (Go's errors name them)
}

var jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// typeTree describes t (a pointer's target) as encoding/json decodes into it.
func typeTree(t reflect.Type, seen map[reflect.Type]bool) *goType {
	pointer := false
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		pointer = true
	}
	g := &goType{Type: t.String()}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		g.Decode = "unmarshaler:" + t.String()
		if !pointer {
			g.Null = "unmarshal"
		}
		return g
	}
	switch t.Kind() {
	case reflect.Bool:
		g.Decode = "bool"
	case reflect.String:
		g.Decode = "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		g.Decode, g.Bits = "int", t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		g.Decode, g.Bits = "uint", t.Bits()
	case reflect.Float32, reflect.Float64:
		g.Decode, g.Bits = "float", t.Bits()
	case reflect.Interface:
		g.Decode = "any"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			g.Decode = "bytes"
			return g
		}
		g.Decode = "slice"
		g.Elem = typeTree(t.Elem(), seen)
	case reflect.Map:
		g.Decode, g.Key = "map", t.Key().String()
		g.Elem = typeTree(t.Elem(), seen)
	case reflect.Struct:
		g.Decode, g.Name = "struct", t.Name()
		if seen[t] {
			panic("kueue-oracle: recursive type " + t.String())
		}
		seen[t] = true
		g.Fields = map[string]*goType{}
		structFields(t, g.Fields, seen, nil)
		delete(seen, t)
	default:
		panic("kueue-oracle: a Configuration field of kind " + t.Kind().String())
	}
	return g
}

// structFields adds t's fields by JSON name, as encoding/json sees them: exported, not `json:"-"`,
// embedded structs without a name inlined (`via` the embedded fields' Go names).
func structFields(t reflect.Type, out map[string]*goType, seen map[reflect.Type]bool, via []string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := cutComma(tag)
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			structFields(ft, out, seen, append(append([]string(nil), via...), f.Name))
			continue
		}
		if name == "" {
			name = f.Name
		}
		g := typeTree(f.Type, seen)
		g.Via = via
		out[name] = g
	}
}

func cutComma(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// yamlLine is `yaml2json`'s line for one document of a file.
type yamlLine struct {
	Path     string          `json:"path"`
	Document int             `json:"document"`
	JSON     json.RawMessage `json:"json,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// runYAMLToJSON converts each file's documents (split as kubectl splits them:
// k8s.io/apimachinery's YAML reader, `---` lines) with sigs.k8s.io/yaml.YAMLToJSON, the
// conversion kubectl (and Kueue's configuration loader) makes of YAML before decoding it.
func runYAMLToJSON(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: kueue-oracle yaml2json FILE...")
		return 2
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	code := 0
	for _, path := range args {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kueue-oracle yaml2json:", err)
			code = 2
			continue
		}
		docs, err := splitYAMLDocuments(data)
		if err != nil {
			enc.Encode(yamlLine{Path: path, Error: err.Error()})
			continue
		}
		for i, doc := range docs {
			line := yamlLine{Path: path, Document: i}
			out, err := yaml.YAMLToJSON(doc)
			if err != nil {
				line.Error = err.Error()
			} else {
				line.JSON = out
			}
			enc.Encode(line)
		}
	}
	return code
}

// splitYAMLDocuments splits a YAML stream at its `---` lines, as kubectl's reader
// (k8s.io/apimachinery/pkg/util/yaml.NewYAMLReader) does.
func splitYAMLDocuments(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
}

// setInputGates sets the input's feature gates as Kueue's main does (cmd/kueue/main.go): the manager
// Deployment's --feature-gates flag, refused beside the Configuration's featureGates
// (config.ValidateFeatureGates), else the Configuration's.
func setInputGates(in *objects.Input) error {
	if in.ManagerFeatureGates == "" {
		return setConfigurationGates(in.Config.FeatureGates)
	}
	if err := config.ValidateFeatureGates(in.ManagerFeatureGates, in.Config.FeatureGates).ToAggregate(); err != nil {
		return fmt.Errorf("conflicting feature gates detected (Kueue's manager at %s): %w", in.ManagerFrom, err)
	}
	if err := utilfeature.DefaultMutableFeatureGate.Set(in.ManagerFeatureGates); err != nil {
		return fmt.Errorf("Kueue's manager's --feature-gates at %s: %w", in.ManagerFrom, err)
	}
	return nil
}
