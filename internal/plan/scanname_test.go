package plan

import "testing"

// TestScanNameAgreesWithBytewise puts every byte value at every offset of the eight-byte words and of
// the tail, so a wrong constant or a carry between bytes in scanName shows.
func TestScanNameAgreesWithBytewise(t *testing.T) {
	for length := 1; length <= 19; length++ {
		for at := 0; at < length; at++ {
			for c := 0; c < 256; c++ {
				b := []byte("abcdefghijklmnopqrs"[:length])
				b[at] = byte(c)
				s := string(b)
				ascii, upper := scanName(s)
				wantASCII, wantUpper := c < 0x80, 'A' <= c && c <= 'Z'
				if ascii != wantASCII || ascii && upper != wantUpper {
					t.Fatalf("scanName(%q) = %t, %t; want %t, %t", s, ascii, upper, wantASCII, wantUpper)
				}
			}
		}
	}
	if ascii, upper := scanName(""); !ascii || upper {
		t.Errorf(`scanName("") = %t, %t`, ascii, upper)
	}
}
