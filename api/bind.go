package api

import (
	"encoding/json"
	"errors"

	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/runtime"
)

// binder fills the generated handlers' request bodies. The validator has
// already decoded and checked each body and left the value on the request;
// the position-bearing bodies of the hot endpoints are converted from it by
// hand, everything else by oapi-codegen's reflective BindJSONValue, and a
// body the validator did not see is decoded as JSON. It only ever binds the
// body: the generated code binds path and query parameters itself.
type binder struct{ echo.DefaultBinder }

// valueBinder is a request body that converts itself from a validated value.
type valueBinder interface {
	bindValue(v any) error
}

func (b *binder) Bind(i any, c echo.Context) error {
	vb, ok := c.Request().Body.(interface{ ValidatedValue() any })
	if !ok {
		return b.BindBody(c, i)
	}
	v := vb.ValidatedValue()
	if fb, ok := i.(valueBinder); ok && fb.bindValue(v) == nil {
		return nil
	}
	if runtime.BindJSONValue(v, i) == nil {
		return nil
	}
	return b.BindBody(c, i)
}

// errShape: a validated value without the shape its schema promises; the
// binder then falls back to the general path, which reports it.
var errShape = errors.New("value does not have the validated shape")

func (r *EvaluateRequest) bindValue(v any) (err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return errShape
	}
	if r.Position, err = positionValue(m["position"]); err != nil {
		return err
	}
	if r.Pit, err = intValue(m["pit"]); err != nil {
		return err
	}
	r.Rules, err = rulesValue(m["rules"])
	return err
}

func (r *MovesRequest) bindValue(v any) (err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return errShape
	}
	if r.Position, err = positionValue(m["position"]); err != nil {
		return err
	}
	r.Rules, err = rulesValue(m["rules"])
	return err
}

func (r *AnalyzeRequest) bindValue(v any) (err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return errShape
	}
	if r.Position, err = positionValue(m["position"]); err != nil {
		return err
	}
	if r.Rules, err = rulesValue(m["rules"]); err != nil {
		return err
	}
	if r.Depth, err = optionalInt(m["depth"]); err != nil {
		return err
	}
	r.TimeMs, err = optionalInt(m["timeMs"])
	return err
}

func positionValue(v any) (Position, error) {
	var p Position
	m, ok := v.(map[string]any)
	if !ok {
		return p, errShape
	}
	pits, ok := m["pits"].([]any)
	if !ok {
		return p, errShape
	}
	p.Pits = make([]int, len(pits))
	for i, n := range pits {
		var err error
		if p.Pits[i], err = intValue(n); err != nil {
			return p, err
		}
	}
	c, ok := m["captured"].(map[string]any)
	if !ok {
		return p, errShape
	}
	var err error
	if p.Captured.South, err = intValue(c["south"]); err != nil {
		return p, err
	}
	if p.Captured.North, err = intValue(c["north"]); err != nil {
		return p, err
	}
	side, ok := m["toMove"].(string)
	if !ok {
		return p, errShape
	}
	p.ToMove = Side(side)
	return p, nil
}

func rulesValue(v any) (*Rules, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errShape
	}
	var r Rules
	if s, ok := m["captureSeed"]; ok {
		w, ok := s.(string)
		if !ok {
			return nil, errShape
		}
		cs := RulesCaptureSeed(w)
		r.CaptureSeed = &cs
	}
	if s, ok := m["leftovers"]; ok {
		w, ok := s.(string)
		if !ok {
			return nil, errShape
		}
		lo := RulesLeftovers(w)
		r.Leftovers = &lo
	}
	return &r, nil
}

// intValue reads a whole number as the validator decodes it (json.Number).
func intValue(v any) (int, error) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		if err != nil || int64(int(i)) != i {
			return 0, errShape
		}
		return int(i), nil
	case float64:
		if n != float64(int(n)) {
			return 0, errShape
		}
		return int(n), nil
	}
	return 0, errShape
}

func optionalInt(v any) (*int, error) {
	if v == nil {
		return nil, nil
	}
	n, err := intValue(v)
	if err != nil {
		return nil, err
	}
	return &n, nil
}
