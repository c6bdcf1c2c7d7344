package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfbot/perfbot/store"
)

// TestRunPageFalseAlarms: a run's marked verdicts are listed on its page
// (who, when, why, the threshold), escaped, and in its JSON; a run
// without marks shows no such section.
func TestRunPageFalseAlarms(t *testing.T) {
	st, ids := filled(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	mark := store.FalseAlarm{RunID: ids[2], Host: "bench-1", Key: store.NoiseKey{Benchmark: "Lookup<b>", Params: `{"size":"500K"}`, Unit: "sec/op"},
		Variant: "patch", Verdict: "worse", DeltaPct: 12.5, By: "alice<script>", Venue: "github",
		Reason: `runner was busy <img src=x onerror="alert(1)">`, At: at}
	if err := st.AddFalseAlarms(ctx, []store.FalseAlarm{mark}); err != nil {
		t.Fatal(err)
	}
	srv := server(t, st)
	_, body := get(t, srv, fmt.Sprintf("/runs/%d", ids[2]), 200)
	for _, want := range []string{
		`<h2 id="false-alarms">Marked false alarms</h2>`,
		`Lookup&lt;b&gt; size=500K</td><td>sec/op</td>`,
		`<td class="worse">worse</td><td class="num">&#43;12.5%</td><td class="mono">bench-1</td><td class="num">15.6%</td>`,
		`alice&lt;script&gt; (github)`,
		`runner was busy &lt;img src=x onerror=&#34;alert(1)&#34;&gt;`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("run page lacks %s", want)
		}
	}
	for _, bad := range []string{"<script>", "<img src=x", "<b>"} {
		if strings.Contains(body, bad) {
			t.Errorf("run page holds %s unescaped", bad)
		}
	}
	_, other := get(t, srv, fmt.Sprintf("/runs/%d", ids[1]), 200)
	if strings.Contains(other, "false-alarms") {
		t.Error("a run without marks shows a false-alarm section")
	}
	var detail RunDetail
	_, js := get(t, srv, fmt.Sprintf("/api/runs/%d", ids[2]), 200)
	if err := json.Unmarshal([]byte(js), &detail); err != nil {
		t.Fatal(err)
	}
	if len(detail.FalseAlarms) != 1 {
		t.Fatalf("/api/runs/%d false_alarms = %+v", ids[2], detail.FalseAlarms)
	}
	if f := detail.FalseAlarms[0]; f.By != mark.By || f.Reason != mark.Reason || f.Host != "bench-1" || !f.At.Equal(at) ||
		f.ThresholdPct != 15.625 || f.Params != "size=500K" {
		t.Errorf("false alarm in JSON = %+v", f)
	}
}
