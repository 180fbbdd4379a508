package holder

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// vectors travel as base64 of float32 little endian, one string per vector
// (null for a missing one): the store keeps float32 anyway, it is a quarter
// of decimal JSON's size, and it carries NaN and infinities.
type vectors [][]float64

func (vs vectors) MarshalJSON() ([]byte, error) {
	if vs == nil {
		return []byte("null"), nil
	}
	// encoding/json writes a []byte as base64, a nil one as null.
	raw := make([][]byte, len(vs))
	for i, v := range vs {
		if v != nil {
			raw[i] = make([]byte, 0, 4*len(v))
		}
		for _, x := range v {
			raw[i] = binary.LittleEndian.AppendUint32(raw[i], math.Float32bits(float32(x)))
		}
	}
	return json.Marshal(raw)
}

func (vs *vectors) UnmarshalJSON(data []byte) error {
	var raw [][]byte
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*vs = nil
		return nil
	}
	out := make(vectors, len(raw))
	for i, b := range raw {
		if b == nil {
			continue
		}
		if len(b)%4 != 0 {
			return fmt.Errorf("vector %d holds %d bytes, not whole float32s", i, len(b))
		}
		v := make([]float64, len(b)/4)
		for j := range v {
			v[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:])))
		}
		out[i] = v
	}
	*vs = out
	return nil
}
