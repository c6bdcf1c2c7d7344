package flame

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"math"
	"strings"
)

// SVGOptions shape a drawing.
type SVGOptions struct {
	// Title is drawn at the top.
	Title string
	// Width is the image width in pixels (default 1200).
	Width int
	// Diff colours frames by how their share changed (red: more time in
	// the candidate, blue: less) instead of the warm flame palette.
	Diff bool
	// MinWidth hides frames narrower than this many pixels (default 0.5);
	// the subtitle says how much time they hold.
	MinWidth float64
}

const (
	frameHeight = 16
	padTop      = 42
	padBottom   = 10
	padSide     = 10
	fontSize    = 11
	charWidth   = 6.6 // average width of a character at fontSize
)

// WriteSVG draws root as a flame graph (root at the bottom), each frame
// as wide as its candidate share. Every frame carries a tooltip with its
// function and shares. Function names are escaped: they come from the code
// under test.
func WriteSVG(w io.Writer, root *Node, opts SVGOptions) error {
	if opts.Width <= 0 {
		opts.Width = 1200
	}
	if opts.MinWidth <= 0 {
		opts.MinWidth = 0.5
	}
	scale := float64(opts.Width-2*padSide) / math.Max(root.Cand, 1e-12)
	depth := root.depth(opts.MinWidth / scale)
	height := padTop + depth*frameHeight + padBottom
	maxDelta := 0.0
	if opts.Diff {
		root.walk(func(n *Node, _ int) {
			maxDelta = math.Max(maxDelta, math.Abs(n.Cand-n.Base))
		})
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" xmlns="http://www.w3.org/2000/svg">
<style>text{font-family:Verdana,sans-serif;font-size:%dpx;fill:#000}rect{stroke:#fff;stroke-width:0.5}</style>
<rect x="0" y="0" width="%d" height="%d" fill="#f8f8f8"/>
<text x="%d" y="20" style="font-size:15px">%s</text>
`, opts.Width, height, opts.Width, height, fontSize, opts.Width, height, opts.Width/2-len([]rune(opts.Title))*4, esc(opts.Title))
	sub := "width: share of the time"
	if opts.Diff {
		sub = "width: candidate's share of the time; red: more than the baseline, blue: less"
	}
	fmt.Fprintf(bw, "<text x=\"%d\" y=\"36\" style=\"fill:#555\">%s</text>\n", padSide, esc(sub))
	var draw func(n *Node, x float64, level int)
	draw = func(n *Node, x float64, level int) {
		width := n.Cand * scale
		if width < opts.MinWidth {
			return
		}
		y := height - padBottom - (level+1)*frameHeight
		fill := warm(n.Name)
		if opts.Diff {
			fill = diffColour(n.Cand-n.Base, maxDelta)
		}
		tip := fmt.Sprintf("%s (%.2f%%)", n.Name, 100*n.Cand)
		if opts.Diff {
			tip = fmt.Sprintf("%s: %.2f%% → %.2f%% (%+.2f points)", n.Name, 100*n.Base, 100*n.Cand, 100*(n.Cand-n.Base))
		}
		fmt.Fprintf(bw, "<g><title>%s</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", esc(tip), x, y, width, frameHeight-1, fill)
		if chars := int((width - 4) / charWidth); chars >= 3 {
			label := []rune(n.Name)
			if len(label) > chars {
				label = append(label[:chars-2], '.', '.')
			}
			fmt.Fprintf(bw, "<text x=\"%.1f\" y=\"%d\">%s</text>", x+2, y+frameHeight-4, esc(string(label)))
		}
		bw.WriteString("</g>\n")
		cx := x
		for _, c := range n.Children {
			draw(c, cx, level+1)
			cx += c.Cand * scale
		}
	}
	draw(root, padSide, 0)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// depth is the number of levels with a frame at least minShare wide.
func (n *Node) depth(minShare float64) int {
	if n.Cand < minShare {
		return 0
	}
	d := 0
	for _, c := range n.Children {
		d = max(d, c.depth(minShare))
	}
	return d + 1
}

func (n *Node) walk(f func(*Node, int)) {
	var rec func(*Node, int)
	rec = func(n *Node, level int) {
		f(n, level)
		for _, c := range n.Children {
			rec(c, level+1)
		}
	}
	rec(n, 0)
}

// esc escapes text for SVG (XML) content and attributes, after replacing
// what XML cannot hold at all (invalid UTF-8, control characters) with
// U+FFFD.
func esc(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, s)
	return html.EscapeString(s)
}

// warm is the classic flame graph palette: a colour from red to yellow,
// the same for the same function name in every graph.
func warm(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	r := 205 + int(v%50)
	g := 80 + int((v>>8)%150)
	b := 40 + int((v>>16)%55)
	return fmt.Sprintf("rgb(%d,%d,%d)", r, g, b)
}

// diffColour is red for a frame that takes a larger share in the
// candidate, blue for a smaller one, more saturated the larger the change
// relative to the largest, and near white for none.
func diffColour(delta, maxDelta float64) string {
	if maxDelta <= 0 || delta == 0 {
		return "rgb(245,245,245)"
	}
	t := math.Min(1, math.Abs(delta)/maxDelta)
	other := int(235 - 195*t)
	if delta > 0 {
		return fmt.Sprintf("rgb(255,%d,%d)", other, other)
	}
	return fmt.Sprintf("rgb(%d,%d,255)", other, other)
}
