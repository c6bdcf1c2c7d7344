package web

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/perfbot/perfbot/report"
)

// foldPage is the most table rows a run page shows at once; the rest are
// reached by ?page=N.
const foldPage = 200

// maxNotes is the most notes a run page lists.
const maxNotes = 200

// Fold says which rows of a run's tables a page shows: every row when
// they fit on one page, else the changed rows (better, worse, added or
// removed) unless ?rows=all asks for every row; foldPage rows a page.
type Fold struct {
	// All is true when every row is shown, not only the changed ones.
	All bool
	// Rows counts the rows of the comparison's tables, Changed the
	// changed ones among them.
	Rows, Changed int
	// Many is true when the rows do not fit on one page.
	Many bool
	// Page is this page (from 1) of Pages; Shown rows are on it.
	Page, Pages, Shown int
	// Prev and Next link the neighbouring pages; AllURL shows every
	// row, ChangedURL only the changed ones.
	Prev, Next, AllURL, ChangedURL string
}

// Unchanged counts the rows that are not changed.
func (f *Fold) Unchanged() int { return f.Rows - f.Changed }

// foldRows keeps in doc's sections the rows the request asks for, at most
// foldPage of them, and says what it left out. A section left without
// rows is dropped.
func foldRows(doc *report.Document, id int64, q url.Values, pageRows int) (*Fold, error) {
	f := &Fold{All: q.Get("rows") == "all", Page: 1}
	switch q.Get("rows") {
	case "", "changed", "all":
	default:
		return nil, badRequest("rows=%q: want changed or all", q.Get("rows"))
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, badRequest("page=%q: want a page number from 1", p)
		}
		f.Page = n
	}
	selected := 0
	for _, s := range doc.Sections {
		for _, l := range s.Lines {
			f.Rows++
			if l.Changed {
				f.Changed++
			}
		}
	}
	f.Many = f.Rows > pageRows
	if q.Get("rows") == "" && !f.Many {
		f.All = true
	}
	if f.All {
		selected = f.Rows
	} else {
		selected = f.Changed
	}
	f.Pages = max(1, (selected+pageRows-1)/pageRows)
	if f.Page > f.Pages {
		return nil, notFound("run %d has %d pages of rows, not %d", id, f.Pages, f.Page)
	}
	skip := (f.Page - 1) * pageRows
	var kept []*report.Section
	for _, s := range doc.Sections {
		c := *s
		c.Lines = nil
		for _, l := range s.Lines {
			if !f.All && !l.Changed {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			if f.Shown == pageRows {
				break
			}
			c.Lines = append(c.Lines, l)
			f.Shown++
		}
		if len(c.Lines) > 0 {
			if len(c.Lines) < len(s.Lines) && !f.All {
				// A geometric mean over rows not shown would read as theirs.
				c.Geomean = nil
			}
			kept = append(kept, &c)
		}
	}
	doc.Sections = kept
	link := func(rows string, page int) string {
		v := url.Values{}
		if rows != "" {
			v.Set("rows", rows)
		}
		if page > 1 {
			v.Set("page", strconv.Itoa(page))
		}
		u := fmt.Sprintf("/runs/%d", id)
		if len(v) > 0 {
			u += "?" + v.Encode()
		}
		return u + "#results"
	}
	rows := q.Get("rows")
	if f.Page > 1 {
		f.Prev = link(rows, f.Page-1)
	}
	if f.Page < f.Pages {
		f.Next = link(rows, f.Page+1)
	}
	f.AllURL, f.ChangedURL = link("all", 1), link("changed", 1)
	return f, nil
}
