package docs

import (
	"bytes"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	yaml "go.yaml.in/yaml/v3"
)

// YAML renders the document as /openapi.yaml serves it: block style,
// top-level sections in the order people read them.
func YAML(spec *openapi3.T) ([]byte, error) {
	js, err := spec.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(js, &doc); err != nil { // JSON is YAML
		return nil, err
	}
	// Block style throughout, multi-line text as literal blocks; the encoder
	// quotes any string that would otherwise read back as another type.
	var blockStyle func(n *yaml.Node)
	blockStyle = func(n *yaml.Node) {
		n.Style = 0
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "\n") {
			n.Style = yaml.LiteralStyle
		}
		for _, c := range n.Content {
			blockStyle(c)
		}
	}
	blockStyle(&doc)
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		reorder(doc.Content[0], "openapi", "info", "servers", "tags", "paths", "components")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// reorder moves the named keys of a mapping node to the front, in order.
func reorder(m *yaml.Node, keys ...string) {
	var front, rest []*yaml.Node
	pairs := map[string][]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		pairs[m.Content[i].Value] = m.Content[i : i+2]
	}
	for _, k := range keys {
		if p, ok := pairs[k]; ok {
			front = append(front, p...)
			delete(pairs, k)
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if _, ok := pairs[m.Content[i].Value]; ok {
			rest = append(rest, m.Content[i:i+2]...)
		}
	}
	m.Content = append(front, rest...)
}
