package emucontrol

import (
	"strconv"
	"testing"
)

func TestErrorStatus(t *testing.T) {
	if got, err := ErrorStatus("fault", 0, 500); err != nil || got != 500 {
		t.Fatalf("status 0: got %d, %v; want the default 500", got, err)
	}
	if got, err := ErrorStatus("fault", 429, 500); err != nil || got != 429 {
		t.Fatalf("status 429: got %d, %v", got, err)
	}
	for _, bad := range []int{200, 302, 399, 600} {
		_, err := ErrorStatus("write failure", bad, 400)
		if err == nil {
			t.Fatalf("status %d accepted", bad)
		}
		if want := "write failure status " + strconv.Itoa(bad) + ": want an HTTP error status (400–599)"; err.Error() != want {
			t.Fatalf("status %d: %q, want %q", bad, err, want)
		}
	}
}

func TestWordingByStatusFillsOnlyWhatIsEmpty(t *testing.T) {
	w := WordingByStatus[int]{
		Throttled:   Wording[int]{Code: 10000, Message: "slow down"},
		ServerError: Wording[int]{Code: 10001, Message: "broken"},
		Other:       Wording[int]{Code: 1000, Message: "bad"},
	}
	cases := []struct {
		status  int
		code    int
		msg     string
		want    int
		wantMsg string
	}{
		{429, 0, "", 10000, "slow down"},
		{503, 0, "", 10001, "broken"},
		{500, 7, "", 7, "broken"},
		{404, 0, "mine", 1000, "mine"},
	}
	for _, c := range cases {
		code, msg := w.Fill(c.status, c.code, c.msg)
		if code != c.want || msg != c.wantMsg {
			t.Errorf("Fill(%d, %d, %q) = %d, %q; want %d, %q", c.status, c.code, c.msg, code, msg, c.want, c.wantMsg)
		}
	}
}
