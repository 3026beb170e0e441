// Command gotypes writes the Go types of a pod template's containers and tolerations as
// Kueue's prebuilt-Workload comparison sees them (equality.Semantic.DeepEqual on core/v1
// Container and Toleration): per struct, each JSON field's kind, so kadmit can compare two
// written containers as Go values (a nil pointer is not a pointer to a zero value; a zero
// bool, number or string is an absent one; an empty slice or map is a nil one).
//
//	cd tools/gotypes && GOFLAGS=-mod=mod GOPROXY=off go run . > ../../src/kadmit/manifests/schema/data/gotypes.json
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A field's kind: "v" a value scalar (bool, number, string), "p" a pointer to a scalar,
// "q" a Quantity, "iq" a pointer to one, "i" an IntOrString, "ip" a pointer to one,
// "s:T" a value struct T, "ps:T" a pointer to struct T, "l:K" a slice of K, "m:K" a map to K.
func kind(t reflect.Type, types map[string]map[string]string) string {
	switch {
	case t == reflect.TypeOf(resource.Quantity{}):
		return "q"
	case t == reflect.TypeOf(intstr.IntOrString{}):
		return "i"
	}
	switch t.Kind() {
	case reflect.Ptr:
		k := kind(t.Elem(), types)
		switch {
		case k == "q":
			return "pq"
		case k == "i":
			return "pi"
		case strings.HasPrefix(k, "s:"):
			return "p" + k
		case k == "v":
			return "p"
		}
		panic("pointer to " + t.Elem().String())
	case reflect.Struct:
		walk(t, types)
		return "s:" + t.Name()
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "v" // []byte: base64 text, compared as bytes
		}
		return "l:" + kind(t.Elem(), types)
	case reflect.Map:
		return "m:" + kind(t.Elem(), types)
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64:
		return "v"
	}
	panic("unhandled " + t.String())
}

func walk(t reflect.Type, types map[string]map[string]string) {
	if _, ok := types[t.Name()]; ok {
		return
	}
	fields := map[string]string{}
	types[t.Name()] = fields
	var add func(reflect.Type)
	add = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if f.Anonymous && name == "" { // an inline struct: its fields are the parent's
				add(f.Type)
				continue
			}
			if name == "" || name == "-" {
				continue
			}
			fields[name] = kind(f.Type, types)
		}
	}
	add(t)
}

func main() {
	types := map[string]map[string]string{}
	walk(reflect.TypeOf(corev1.Container{}), types)
	walk(reflect.TypeOf(corev1.Toleration{}), types)
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]any{"source": "k8s.io/api v0.35.3 core/v1 (tools/gotypes)", "types": types}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		panic(err)
	}
}
