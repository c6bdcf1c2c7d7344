package report

import (
	"github.com/perfbot/perfbot/internal/safetext"

	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/perfbot/perfbot/answer"
	"github.com/perfbot/perfbot/compare"
)

const (
	// limitMargin is left free for what a venue client adds to a post,
	// such as GitHub's hidden marker line.
	limitMargin = 256
)

// Attachment names of Message.
const (
	// ResultsAttachment holds the comparison as JSON (the --format json
	// contract).
	ResultsAttachment = "perfbot-results.json"
	// TextAttachment holds the full report as plain text.
	TextAttachment = "perfbot-report.txt"
)

// Message renders cmp for every venue at once. Key is copied from opts.
// Subject reads "perfbot: <patch subject>: 2 better, 1 worse"; State is
// failure when anything got worse and error when nothing could be
// compared. Each format's Short rendering shows the summary and the changed
// rows only; for a format given room in opts.Limits (a venue's size
// limit) it is cut further, saying how many rows were left out, until it
// fits. Attachments hold the charts (PNG,
// inline, referenced by the HTML part as cid:<name>), the full report as
// text and the comparison as JSON.
func Message(cmp *compare.Comparison, opts Options) (answer.Answer, error) {
	if cmp == nil {
		return answer.Answer{}, errors.New("report: no comparison to render")
	}
	sets := map[venue]*templateSet{}
	for _, v := range []venue{venueMarkdown, venueReviewBoard, venueJIRA, venueText, venueHTML} {
		s, err := loadTemplates(v, opts.TemplateDir)
		if err != nil {
			return answer.Answer{}, err
		}
		sets[v] = s
	}
	doc := build(cmp, opts)
	msg := answer.Answer{
		Key:     opts.Key,
		Subject: messageSubject(cmp),
		Summary: doc.Summary,
		State:   State(cmp),
		Commit:  MeasuredCommit(cmp),
	}

	var charts []answer.Attachment
	if !opts.NoCharts {
		var err error
		if charts, err = chartsFor(cmp, doc); err != nil {
			return answer.Answer{}, err
		}
	}
	results, err := marshalComparison(cmp)
	if err != nil {
		return answer.Answer{}, fmt.Errorf("report: results: %w", err)
	}

	var errs []error
	render := func(v venue, d *Document) string {
		out, err := sets[v].render(d)
		errs = append(errs, err)
		return out
	}
	full := *doc
	full.Charts = nil
	text := render(venueText, &full)
	jira := render(venueJIRA, &full)
	rb := render(venueReviewBoard, &full)
	htm := render(venueHTML, doc) // with its cid: charts
	md := full
	if md.Rows > collapseRows {
		md.Collapse = true
		md.ChangedSections = shortDoc(&full, -1).Sections
	}
	gfm := render(venueMarkdown, &md)
	if err := errors.Join(errs...); err != nil {
		return answer.Answer{}, err
	}
	msg.Set(answer.Text, answer.Rendering{Full: text})
	msg.Set(answer.HTML, answer.Rendering{Full: htm})
	for _, f := range []struct {
		format answer.Format
		v      venue
		full   string
	}{{answer.MarkdownGFM, venueMarkdown, gfm}, {answer.MarkdownRB, venueReviewBoard, rb}, {answer.JIRAWiki, venueJIRA, jira}} {
		limit := -1 // every changed row
		if l := opts.Limits[f.format]; l > 0 {
			limit = room(l)
		}
		short, err := fitShort(sets[f.v], &full, limit)
		if err != nil {
			return answer.Answer{}, err
		}
		msg.Set(f.format, answer.Rendering{Full: f.full, Short: short})
	}

	msg.Attachments = append(msg.Attachments, charts...)
	msg.Attachments = append(msg.Attachments,
		answer.Attachment{Name: TextAttachment, ContentType: "text/plain; charset=utf-8", Data: []byte(text)},
		answer.Attachment{Name: ResultsAttachment, ContentType: "application/json", Data: results},
	)
	return msg.Map(safetext.Answer), nil
}

// room is the part of a limit a rendering may fill.
func room(limit int) int {
	if limit > 4*limitMargin {
		return limit - limitMargin
	}
	return limit
}

// chartsFor draws the PNG charts of a message; a chart that cannot be drawn
// is an error, not a silent gap.
func chartsFor(cmp *compare.Comparison, doc *Document) ([]answer.Attachment, error) {
	return charts(cmp, doc, []string{"png"})
}

// messageSubject is "perfbot: <subject>: 2 better, 1 worse".
func messageSubject(cmp *compare.Comparison) string {
	total := cmp.Total()
	better, worse := total.Better, total.Worse
	var verdict string
	switch {
	case len(cmp.Failures) > 0 && State(cmp) == answer.StateError:
		var fs []string
		for _, f := range cmp.Failures {
			fs = append(fs, f.Variant+" "+f.Stage)
		}
		verdict = "FAILED (" + strings.Join(fs, ", ") + ")"
	case State(cmp) == answer.StateError:
		verdict = "nothing compared"
	default:
		verdict = fmt.Sprintf("%d better, %d worse", better, worse)
	}
	return oneLine("perfbot: " + subject(cmp) + ": " + verdict)
}

// shortDoc keeps the first keep changed lines of full (all of them when
// keep < 0) and drops sections left empty.
func shortDoc(full *Document, keep int) *Document {
	d := *full
	d.Short, d.Collapse, d.ChangedSections, d.Details = true, false, nil, nil
	d.Sections = nil
	changed, shown := 0, 0
	for _, s := range full.Sections {
		var lines []*Line
		firstWorkload := ""
		for _, l := range s.Lines {
			if !l.Changed {
				continue
			}
			changed++
			if keep >= 0 && shown >= keep {
				continue
			}
			if s.Shape == ShapeWorkloads && l.Workload != firstWorkload {
				// the first shown line of a workload names it
				c := *l
				c.First = true
				l = &c
				firstWorkload = l.Workload
			}
			lines = append(lines, l)
			shown++
		}
		if len(lines) == 0 {
			continue
		}
		c := *s
		c.Lines = lines
		if s.Shape == ShapeTable {
			c.Geomean = s.Geomean
		}
		d.Sections = append(d.Sections, &c)
	}
	d.Omitted = full.Rows - shown
	d.OmittedChanged = changed - shown
	d.Attached = TextAttachment
	return &d
}

// fitShort renders the changed lines of full, as many as fit in limit
// characters; when not even the summary and provenance fit, the rendering
// is cut at a line boundary with a note. A negative limit keeps every
// changed line. It guesses the number of lines
// that fit from the size of a line, then searches near the guess.
func fitShort(set *templateSet, full *Document, limit int) (string, error) {
	type try struct {
		out  string
		size int
	}
	tries := map[int]try{}
	render := func(keep int) (try, error) {
		if t, ok := tries[keep]; ok {
			return t, nil
		}
		out, err := set.render(shortDoc(full, keep))
		t := try{out, utf8.RuneCountInString(out)}
		tries[keep] = t
		return t, err
	}
	changed := full.countChanged()
	all, err := render(changed)
	if err != nil || limit < 0 || all.size <= limit {
		return all.out, err
	}
	none, err := render(0)
	if err != nil {
		return "", err
	}
	if none.size > limit {
		return cutText(none.out, limit), nil
	}
	// Invariant: keep=lo fits, keep=hi does not.
	lo, hi := 0, changed
	if per := float64(all.size-none.size) / float64(changed); per > 0 {
		guess := min(changed-1, max(0, int(float64(limit-none.size)/per)))
		step := max(1, guess/50)
		for _, k := range []int{guess, guess - step, guess + step} {
			if k <= lo || k >= hi {
				continue
			}
			t, err := render(k)
			if err != nil {
				return "", err
			}
			if t.size <= limit {
				lo = k
			} else {
				hi = k
			}
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		t, err := render(mid)
		if err != nil {
			return "", err
		}
		if t.size <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return tries[lo].out, nil
}

// cutText keeps the first lines of s that fit in limit characters and says
// that the rest was cut.
func cutText(s string, limit int) string {
	const note = "\n… the rest of this report was cut to fit the size limit …\n"
	room := limit - utf8.RuneCountInString(note)
	if room <= 0 {
		return string([]rune(s)[:max(0, limit)])
	}
	var b strings.Builder
	n := 0
	for _, l := range strings.SplitAfter(s, "\n") {
		c := utf8.RuneCountInString(l)
		if n+c > room {
			if n == 0 {
				b.WriteString(string([]rune(l)[:room]))
			}
			break
		}
		b.WriteString(l)
		n += c
	}
	return b.String() + note
}
