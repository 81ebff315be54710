package answer

import (
	"reflect"
	"strings"
	"testing"
)

// fill sets every field of v that JSON encodes: a pointer to a new value,
// a slice of two, each string a name of its own, so that no part a
// visitor could miss is nil or empty.
func fill(v reflect.Value, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), depth+1)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), depth+1)
		}
	case reflect.String:
		v.SetString("f")
	case reflect.Struct:
		for i := range v.NumField() {
			if encoded(v.Type().Field(i)) {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

func encoded(sf reflect.StructField) bool {
	return sf.IsExported() && sf.Tag.Get("json") != "-"
}

// fileNames collects, as JSON reaches them, the address of every string
// under the key "file" (a srcpos.Pos's File among them).
func fileNames(v reflect.Value, out map[*string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			fileNames(v.Elem(), out)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			fileNames(v.Index(i), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			sf := v.Type().Field(i)
			tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			switch {
			case !encoded(sf):
			case tag == "file" && sf.Type.Kind() == reflect.String:
				out[v.Field(i).Addr().Interface().(*string)] = true
			default:
				fileNames(v.Field(i), out)
			}
		}
	}
}

// Files visits every file name an answer's JSON holds: a position or a
// "file" field added to an answer's parts without its visitor fails here.
func TestFilesVisitsEveryFileName(t *testing.T) {
	for _, a := range []Located{&Report{}, &GatesReport{}, &PeriodsReport{}, &RPCReport{}, &NodeReport{}, &RuntimeReport{}, &GateHistoryReport{}, &GateAtRelease{}} {
		v := reflect.ValueOf(a)
		fill(v.Elem(), 0)
		want := map[*string]bool{}
		fileNames(v, want)
		if len(want) == 0 {
			t.Errorf("%T: no file names filled", a)
		}
		got := map[*string]bool{}
		a.Files(func(f *string, at *Pos) {
			got[f] = true
			if at != nil && &at.File != f {
				t.Errorf("%T: Files visits %q with a position that does not hold it", a, *f)
			}
		})
		for f := range want {
			if !got[f] {
				*f = "MISSED"
			}
		}
		for f := range got {
			if !want[f] {
				t.Errorf("%T: Files visits a string JSON does not encode as a file (%q)", a, *f)
			}
		}
		if missed := missedPaths(v, ""); len(missed) > 0 {
			t.Errorf("%T: Files does not visit %s", a, strings.Join(missed, ", "))
		}
	}
}

// missedPaths names the fields fileNames found and Files did not visit.
func missedPaths(v reflect.Value, path string) []string {
	var out []string
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = missedPaths(v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			out = append(out, missedPaths(v.Index(i), path+"[]")...)
		}
	case reflect.String:
		if v.String() == "MISSED" {
			out = append(out, path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if sf := v.Type().Field(i); encoded(sf) {
				out = append(out, missedPaths(v.Field(i), path+"."+sf.Name)...)
			}
		}
	}
	return out
}
