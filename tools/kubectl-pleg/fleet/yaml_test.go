package fleet

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// -o yaml converts one report at a time; what it writes is what
// converting the whole list writes, byte for byte.
func TestYAMLItemByItem(t *testing.T) {
	for _, items := range [][]string{
		{},
		{`{"node":"a","reasons":[{"claim":"x","points":["p","q"]}],"gate":{"value":true},"empty":{},"none":[]}`},
		{`{"node":"b","why":"line one\nline two\n\nline four"}`, `{"node":"c","n":3,"list":[[1,2],[]],"s":"- not a list"}`},
	} {
		var encoded []json.RawMessage
		for _, it := range items {
			encoded = append(encoded, json.RawMessage(it))
		}
		var got bytes.Buffer
		if err := writeStructured(&got, encoded, true); err != nil {
			t.Fatal(err)
		}
		whole, err := yaml.JSONToYAML([]byte("[" + strings.Join(items, ",") + "]"))
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(whole) {
			t.Errorf("item by item:\n%s\nwhole:\n%s", got.String(), whole)
		}
	}
}
