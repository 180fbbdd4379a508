package prompts

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// checkFields finds references to fields the data type does not have,
// anywhere in the template, including branches that a trial render would
// not take ({{if .Reference}}{{.Refrence}}{{end}}): text/template only
// complains about them when such a branch runs, which may be hours into a run.
//
// Types are followed through range, with and variables; where a type cannot
// be known statically (function results, templates invoked with
// {{template}}) checking stops and the trial render at load time takes over.
func checkFields(t *template.Template, data reflect.Type) error {
	if t.Tree == nil || t.Root == nil {
		return nil
	}
	c := &fieldChecker{tree: t.Tree}
	c.walk(t.Root, data, map[string]reflect.Type{"$": data})
	return errors.Join(c.errs...)
}

type fieldChecker struct {
	tree *parse.Tree
	errs []error
}

var intType = reflect.TypeFor[int]()

func (c *fieldChecker) walk(n parse.Node, dot reflect.Type, vars map[string]reflect.Type) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, x := range n.Nodes {
			c.walk(x, dot, vars)
		}
	case *parse.ActionNode:
		c.declare(n.Pipe, c.pipe(n.Pipe, dot, vars), vars)
	case *parse.TemplateNode:
		c.pipe(n.Pipe, dot, vars)
	case *parse.IfNode:
		inner := maps.Clone(vars)
		c.declare(n.Pipe, c.pipe(n.Pipe, dot, inner), inner)
		c.walk(n.List, dot, inner)
		c.walk(n.ElseList, dot, maps.Clone(vars))
	case *parse.WithNode:
		inner := maps.Clone(vars)
		t := c.pipe(n.Pipe, dot, inner)
		c.declare(n.Pipe, t, inner)
		c.walk(n.List, t, inner)
		c.walk(n.ElseList, dot, maps.Clone(vars))
	case *parse.RangeNode:
		inner := maps.Clone(vars)
		key, elem := rangeTypes(c.pipe(n.Pipe, dot, inner))
		switch len(n.Pipe.Decl) {
		case 1:
			inner[n.Pipe.Decl[0].Ident[0]] = elem
		case 2:
			inner[n.Pipe.Decl[0].Ident[0]] = key
			inner[n.Pipe.Decl[1].Ident[0]] = elem
		}
		c.walk(n.List, elem, inner)
		c.walk(n.ElseList, dot, maps.Clone(vars))
	}
}

func (c *fieldChecker) declare(p *parse.PipeNode, t reflect.Type, vars map[string]reflect.Type) {
	if p == nil || p.IsAssign {
		return
	}
	for _, v := range p.Decl {
		vars[v.Ident[0]] = t
	}
}

// pipe checks every argument of the pipeline and returns its result type,
// or nil when the last command is a function call.
func (c *fieldChecker) pipe(p *parse.PipeNode, dot reflect.Type, vars map[string]reflect.Type) reflect.Type {
	if p == nil {
		return nil
	}
	var t reflect.Type
	for _, cmd := range p.Cmds {
		t = nil
		for _, arg := range cmd.Args {
			at := c.arg(arg, dot, vars)
			if len(cmd.Args) == 1 {
				t = at
			}
		}
	}
	return t
}

func (c *fieldChecker) arg(n parse.Node, dot reflect.Type, vars map[string]reflect.Type) reflect.Type {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		return c.resolve(n, dot, n.Ident, ".")
	case *parse.VariableNode:
		base, ok := vars[n.Ident[0]]
		if !ok {
			return nil
		}
		return c.resolve(n, base, n.Ident[1:], n.Ident[0]+".")
	case *parse.ChainNode:
		return c.resolve(n, c.arg(n.Node, dot, vars), n.Field, "(…).")
	case *parse.PipeNode:
		return c.pipe(n, dot, vars)
	case *parse.StringNode:
		return reflect.TypeFor[string]()
	case *parse.BoolNode:
		return reflect.TypeFor[bool]()
	}
	return nil
}

// resolve follows a field chain from t and records an error at the first
// name t does not have.
func (c *fieldChecker) resolve(n parse.Node, t reflect.Type, idents []string, prefix string) reflect.Type {
	path := strings.TrimSuffix(prefix, ".")
	for _, id := range idents {
		if t == nil {
			return nil
		}
		// Data holds no methods, pointers, maps or interfaces: a name is
		// a struct's field or nothing.
		var f reflect.StructField
		if t.Kind() == reflect.Struct {
			f, _ = t.FieldByName(id)
		}
		if f.Type == nil || !f.IsExported() {
			c.fail(n, path+"."+id, t)
			return nil
		}
		t = f.Type
		path += "." + id
	}
	return t
}

func (c *fieldChecker) fail(n parse.Node, ref string, in reflect.Type) {
	loc, _ := c.tree.ErrorContext(n)
	if in == reflect.TypeFor[Data]() {
		c.errs = append(c.errs, fmt.Errorf("%s: unknown field %s; the template data has %s", loc, ref, dataFields()))
		return
	}
	c.errs = append(c.errs, fmt.Errorf("%s: %s: a %s has no field %s", loc, ref, in, ref[strings.LastIndexByte(ref, '.'):]))
}

func dataFields() string {
	t := reflect.TypeFor[Data]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = "." + t.Field(i).Name
	}
	return strings.Join(names, ", ")
}

// rangeTypes are the key and element types of ranging over t: Data's
// lists, or its one number (a range over an int counts up to it).
func rangeTypes(t reflect.Type) (key, elem reflect.Type) {
	switch {
	case t == nil:
		return nil, nil
	case t.Kind() == reflect.Slice:
		return intType, t.Elem()
	case t == intType:
		return t, t
	}
	return nil, nil
}
