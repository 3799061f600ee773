// Package docs renders the loaded OpenAPI document for people: the
// reference page, /docs (every tag, operation, schema, description and
// example, and the table of problem codes the server answers with), and the
// YAML that /openapi.yaml serves. The page carries its own style and no
// script, so it works offline and without any CDN, and it links back to the
// game, the web client at /.
package docs

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

//go:embed docs.html.tmpl
var docsTemplate string

// Problem is one row of the page's table of problem codes.
type Problem struct {
	Code   string
	Status string // "404"; "4xx" for a code that keeps the status it answers
	Title  string
}

type docsPage struct {
	Title, Version string
	Description    template.HTML
	Tags           []docsTag
	Schemas        []docsSchema
	Problems       []Problem
	ProblemAnchor  string
}

type docsTag struct {
	Name        string
	Description template.HTML
	Ops         []docsOp
}

type docsOp struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	Body                      *docsBody
	Responses                 []docsResponse
}

type docsBody struct {
	Required bool
	Media    []docsMedia
}

type docsResponse struct {
	Status      string
	Description template.HTML
	Headers     []string
	Media       []docsMedia
}

type docsMedia struct {
	Type     string
	Schema   template.HTML
	Examples []docsExample
}

type docsExample struct{ Name, Summary, Value string }

type docsSchema struct {
	Name        string
	Type        template.HTML
	Description template.HTML
	Props       []docsProp
	Example     string
}

type docsProp struct {
	Name        string
	Type        template.HTML
	Required    bool
	Description template.HTML
}

// Render builds the reference page of spec (the server does once, on the
// first request for it). problems are
// the codes the server answers with; each row's anchor is problemAnchor
// followed by its code, the fragment of the problem types' URIs, so that
// every type resolves to its row.
func Render(spec *openapi3.T, problems []Problem, problemAnchor string) ([]byte, error) {
	t, err := template.New("docs").Parse(docsTemplate)
	if err != nil {
		return nil, err
	}
	page := docsPage{
		Title:         spec.Info.Title,
		Version:       spec.Info.Version,
		Description:   markdown(spec.Info.Description),
		Problems:      problems,
		ProblemAnchor: problemAnchor,
	}
	byTag := map[string]*docsTag{}
	for _, tg := range spec.Tags {
		page.Tags = append(page.Tags, docsTag{Name: tg.Name, Description: markdown(tg.Description)})
	}
	for i := range page.Tags {
		byTag[page.Tags[i].Name] = &page.Tags[i]
	}
	paths := spec.Paths.InMatchingOrder()
	slices.Sort(paths)
	for _, path := range paths {
		item := spec.Paths.Find(path)
		for method, op := range item.Operations() {
			d := docsOp{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: markdown(op.Description)}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				d.Body = &docsBody{Required: rb.Value.Required, Media: media(rb.Value.Content)}
			}
			codes := op.Responses.Map()
			statuses := make([]string, 0, len(codes))
			for code := range codes {
				statuses = append(statuses, code)
			}
			slices.Sort(statuses)
			for _, code := range statuses {
				r := codes[code].Value
				if r == nil {
					continue
				}
				dr := docsResponse{Status: code, Media: media(r.Content)}
				if r.Description != nil {
					dr.Description = markdown(*r.Description)
				}
				for name := range r.Headers {
					dr.Headers = append(dr.Headers, name)
				}
				slices.Sort(dr.Headers)
				d.Responses = append(d.Responses, dr)
			}
			tag := "other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			if byTag[tag] == nil {
				page.Tags = append(page.Tags, docsTag{Name: tag})
				for i := range page.Tags { // the append may have moved them
					byTag[page.Tags[i].Name] = &page.Tags[i]
				}
			}
			byTag[tag].Ops = append(byTag[tag].Ops, d)
		}
	}
	for _, tg := range page.Tags {
		// By path, then method: the operations of one path come from a map.
		slices.SortFunc(tg.Ops, func(a, b docsOp) int {
			return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Method, b.Method))
		})
	}
	names := make([]string, 0, len(spec.Components.Schemas))
	for name := range spec.Components.Schemas {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := spec.Components.Schemas[name].Value
		ds := docsSchema{Name: name, Type: schemaType(spec.Components.Schemas[name], true), Description: markdown(s.Description), Example: pretty(s.Example)}
		for _, prop := range propsOf(s) {
			ds.Props = append(ds.Props, prop)
		}
		page.Schemas = append(page.Schemas, ds)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, page); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// propsOf lists an object schema's properties, those of allOf parts
// included, in name order.
func propsOf(s *openapi3.Schema) []docsProp {
	var out []docsProp
	for _, part := range s.AllOf {
		if part.Value != nil && part.Ref == "" {
			out = append(out, propsOf(part.Value)...)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := s.Properties[name]
		desc := ""
		if p.Value != nil {
			desc = p.Value.Description
			if desc == "" && p.Ref != "" {
				desc = "See " + refName(p.Ref) + "."
			}
		}
		out = append(out, docsProp{Name: name, Type: schemaType(p, false), Required: slices.Contains(s.Required, name), Description: markdown(desc)})
	}
	return out
}

func media(content openapi3.Content) []docsMedia {
	types := make([]string, 0, len(content))
	for mt := range content {
		types = append(types, mt)
	}
	slices.Sort(types)
	var out []docsMedia
	for _, mt := range types {
		m := content[mt]
		dm := docsMedia{Type: mt}
		if m.Schema != nil {
			dm.Schema = schemaType(m.Schema, false)
		}
		if m.Example != nil {
			dm.Examples = append(dm.Examples, docsExample{Name: "example", Value: pretty(m.Example)})
		}
		names := make([]string, 0, len(m.Examples))
		for name := range m.Examples {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if ex := m.Examples[name].Value; ex != nil {
				dm.Examples = append(dm.Examples, docsExample{Name: name, Summary: ex.Summary, Value: pretty(ex.Value)})
			}
		}
		if len(dm.Examples) == 0 && m.Schema != nil && m.Schema.Value != nil && m.Schema.Value.Example != nil {
			dm.Examples = append(dm.Examples, docsExample{Name: "example", Value: pretty(m.Schema.Value.Example)})
		}
		out = append(out, dm)
	}
	return out
}

func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

// schemaType describes a schema in a few words, linking named schemas.
// top describes a named schema itself rather than linking to it.
func schemaType(ref *openapi3.SchemaRef, top bool) template.HTML {
	if ref == nil {
		return "any"
	}
	if ref.Ref != "" && !top {
		name := template.HTMLEscapeString(refName(ref.Ref))
		return template.HTML(`<a href="#schema-` + name + `">` + name + `</a>`)
	}
	s := ref.Value
	if s == nil {
		return "any"
	}
	var parts []string
	switch {
	case len(s.AllOf) == 1 && s.Type == nil:
		parts = append(parts, string(schemaType(s.AllOf[0], false)))
	case len(s.AllOf) > 1:
		var all []string
		for _, p := range s.AllOf {
			all = append(all, string(schemaType(p, false)))
		}
		parts = append(parts, "all of "+strings.Join(all, " and "))
	case s.Type.Is(openapi3.TypeArray):
		parts = append(parts, "array of "+string(schemaType(s.Items, false)))
	case s.Type != nil && len(s.Type.Slice()) > 0:
		parts = append(parts, template.HTMLEscapeString(strings.Join(s.Type.Slice(), " or ")))
	default:
		parts = append(parts, "any")
	}
	if s.Format != "" {
		parts = append(parts, template.HTMLEscapeString("("+s.Format+")"))
	}
	if len(s.Enum) > 0 {
		var vals []string
		for _, v := range s.Enum {
			vals = append(vals, "<code>"+template.HTMLEscapeString(fmt.Sprint(v))+"</code>")
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	if s.Min != nil || s.Max != nil {
		parts = append(parts, template.HTMLEscapeString(fmt.Sprintf("%s to %s", bound(s.Min), bound(s.Max))))
	}
	if s.MinItems > 0 || s.MaxItems != nil {
		switch {
		case s.MaxItems != nil && *s.MaxItems == s.MinItems:
			parts = append(parts, fmt.Sprintf("exactly %d items", s.MinItems))
		case s.MaxItems != nil:
			parts = append(parts, fmt.Sprintf("%d to %d items", s.MinItems, *s.MaxItems))
		default:
			parts = append(parts, fmt.Sprintf("at least %d items", s.MinItems))
		}
	}
	if s.Nullable {
		parts = append(parts, "or null")
	}
	if s.Default != nil {
		parts = append(parts, "default <code>"+template.HTMLEscapeString(fmt.Sprint(s.Default))+"</code>")
	}
	return template.HTML(strings.Join(parts, ", "))
}

func bound(f *float64) string {
	if f == nil {
		return "any"
	}
	return fmt.Sprint(*f)
}

// pretty renders an example: JSON indented by encoding/json (object keys
// sorted), text as it is. The page's template escapes it, so <, > and &
// stay as written rather than as JSON's \u escapes.
func pretty(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil { // an example loaded from YAML is plain data
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// docsMarkdown renders the document's descriptions as CommonMark, bare links
// included. Raw HTML is not recognised at all, so a tag in a description is
// shown as written, escaped, rather than dropped or obeyed; the renderer's
// default safe mode also keeps dangerous link targets (javascript: and the
// like) out of the page.
var docsMarkdown = goldmark.New(
	goldmark.WithExtensions(extension.Linkify),
	goldmark.WithParser(parser.NewParser(
		parser.WithBlockParsers(without(parser.DefaultBlockParsers(), parser.NewHTMLBlockParser())...),
		parser.WithInlineParsers(without(parser.DefaultInlineParsers(), parser.NewRawHTMLParser())...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)),
)

// without is goldmark's list of parsers less the one of drop's type.
func without(parsers []util.PrioritizedValue, drop any) []util.PrioritizedValue {
	return slices.DeleteFunc(parsers, func(p util.PrioritizedValue) bool {
		return reflect.TypeOf(p.Value) == reflect.TypeOf(drop)
	})
}

// markdown renders one description.
func markdown(s string) template.HTML {
	var b strings.Builder
	if err := docsMarkdown.Convert([]byte(s), &b); err != nil {
		// Only a failing writer makes Convert fail; a Builder never does.
		return template.HTML(template.HTMLEscapeString(s)) //nolint:gosec // escaped
	}
	return template.HTML(b.String()) //nolint:gosec // goldmark escapes the text
}
