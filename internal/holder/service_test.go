package holder

import (
	"reflect"
	"testing"
)

// Every method is a func the dispatch can call: the connection or the
// database first, an error last.
func TestMethodsTakeTheConnectionOrTheDatabase(t *testing.T) {
	for name, m := range methods {
		ft := reflect.TypeOf(m)
		if ft.Kind() != reflect.Func || ft.NumIn() == 0 || ft.In(0) != reflect.TypeFor[*conn]() && ft.In(0) != dbType ||
			ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != reflect.TypeFor[error]() {
			t.Errorf("%s is a %v", name, ft)
		}
	}
}
