package flame

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"math"
	"os"
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
	// BaseSamples and CandSamples are the sample counts of each side
	// (Profile.Samples), shown on the graph; 0 leaves them out. A side
	// with fewer than MinSamples gets a warning: its shares move by
	// chance.
	BaseSamples, CandSamples int64
}

// MinSamples is the fewest samples a side needs before its shares are
// worth comparing: with fewer, a 1% share is a handful of samples.
const MinSamples = 500

const (
	frameHeight = 16
	padTop      = 42
	padBottom   = 10
	padSide     = 10
	fontSize    = 11
	charWidth   = 6.6 // average width of a character at fontSize
)

// WriteSVGFile writes the flame graph of WriteSVG into the file at path.
func WriteSVGFile(path string, root *Node, opts SVGOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteSVG(f, root, opts); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

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
	var funcs map[string]*share
	if opts.Diff {
		funcs = functionShares(root)
		for _, f := range funcs {
			maxDelta = math.Max(maxDelta, math.Abs(f.candTotal-f.baseTotal))
		}
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
		sub = "width: candidate's share; colour: the function's share of each side's total (all its frames), red more, blue less"
	}
	if opts.CandSamples > 0 {
		if opts.Diff {
			sub += fmt.Sprintf(" · samples: base %d, candidate %d", opts.BaseSamples, opts.CandSamples)
		} else {
			sub += fmt.Sprintf(" · %d samples", opts.CandSamples)
		}
	}
	if (opts.CandSamples > 0 && opts.CandSamples < MinSamples) || (opts.Diff && opts.BaseSamples > 0 && opts.BaseSamples < MinSamples) {
		sub += fmt.Sprintf(" · TOO FEW SAMPLES TO TRUST (fewer than %d on a side)", MinSamples)
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
		if opts.Diff && level > 0 {
			f := funcs[n.Name]
			fill = diffColour(f.candTotal-f.baseTotal, maxDelta)
		}
		tip := fmt.Sprintf("%s (%.2f%%)", n.Name, 100*n.Cand)
		if opts.Diff {
			f := funcs[n.Name]
			tip = fmt.Sprintf("%s: total %.2f%% → %.2f%% (%+.2f points), self %.2f%% → %.2f%% (%+.2f points); this stack %.2f%% → %.2f%%",
				n.Name, 100*f.baseTotal, 100*f.candTotal, 100*(f.candTotal-f.baseTotal),
				100*f.baseSelf, 100*f.candSelf, 100*(f.candSelf-f.baseSelf), 100*n.Base, 100*n.Cand)
		}
		fmt.Fprintf(bw, "<g class=\"f\" data-name=\"%s\"><title>%s</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" data-x=\"%.1f\" data-w=\"%.1f\"/>", esc(n.Name), esc(tip), x, y, width, frameHeight-1, fill, x, width)
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
	fmt.Fprintf(bw, "<text id=\"reset\" x=\"%d\" y=\"20\" style=\"cursor:pointer;fill:#0969da;display:none\">Reset zoom</text>\n", padSide)
	fmt.Fprintf(bw, "<text id=\"search\" x=\"%d\" y=\"20\" style=\"cursor:pointer;fill:#0969da\" text-anchor=\"end\">Search</text>\n", opts.Width-padSide)
	fmt.Fprintf(bw, "<text id=\"matched\" x=\"%d\" y=\"36\" text-anchor=\"end\" style=\"fill:#555\"></text>\n", opts.Width-padSide)
	fmt.Fprintf(bw, "<script type=\"text/ecmascript\"><![CDATA[\n%s\n]]></script>\n", strings.ReplaceAll(zoomScript, "PAD", fmt.Sprint(padSide)))
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// zoomScript makes the SVG interactive without a network: a click on a
// frame zooms to it (its callers stay as a full-width path below), "Reset
// zoom" goes back, "Search" colours the frames whose function matches a
// regular expression and says what share of the graph they cover. Frame
// names reach it only through data attributes that WriteSVG escaped.
const zoomScript = `(function(){
var svg=document.documentElement, W=svg.viewBox.baseVal.width-2*PAD, frames=[].slice.call(document.querySelectorAll("g.f"));
function label(g,w){var t=g.querySelector("text"),n=g.getAttribute("data-name"),c=Math.floor((w-4)/6.6);
 if(!t){t=document.createElementNS("http://www.w3.org/2000/svg","text");g.appendChild(t);}
 var r=g.querySelector("rect");t.setAttribute("x",+r.getAttribute("x")+2);t.setAttribute("y",+r.getAttribute("y")+12);
 t.textContent=c<3?"":(n.length>c?n.slice(0,c-2)+"..":n);}
function zoom(g){var r=g.querySelector("rect"),x0=+r.getAttribute("data-x"),w0=+r.getAttribute("data-w"),y0=+r.getAttribute("y");
 frames.forEach(function(f){var q=f.querySelector("rect"),x=+q.getAttribute("data-x"),w=+q.getAttribute("data-w"),y=+q.getAttribute("y");
  if(y>y0){q.setAttribute("x",PAD);q.setAttribute("width",W);f.style.display="";f.style.opacity=0.6;label(f,W);return;}
  if(x<x0-0.01||x+w>x0+w0+0.01){f.style.display="none";return;}
  var nx=PAD+(x-x0)*W/w0,nw=w*W/w0;q.setAttribute("x",nx);q.setAttribute("width",nw);f.style.display="";f.style.opacity=1;label(f,nw);});
 document.getElementById("reset").style.display="";}
function reset(){frames.forEach(function(f){var q=f.querySelector("rect");q.setAttribute("x",q.getAttribute("data-x"));
 q.setAttribute("width",q.getAttribute("data-w"));f.style.display="";f.style.opacity=1;label(f,+q.getAttribute("data-w"));});
 document.getElementById("reset").style.display="none";}
function search(){var s=prompt("Search functions (regular expression):","");if(s===null)return;var re;try{re=new RegExp(s);}catch(e){return;}
 var hit=0,total=0;frames.forEach(function(f){var q=f.querySelector("rect"),w=+q.getAttribute("data-w"),y=+q.getAttribute("y");
  if(q.hasAttribute("data-fill")){q.setAttribute("fill",q.getAttribute("data-fill"));q.removeAttribute("data-fill");}
  if(w>total)total=w;
  if(s!==""&&re.test(f.getAttribute("data-name"))){q.setAttribute("data-fill",q.getAttribute("fill"));q.setAttribute("fill","rgb(230,0,230)");hit+=w;}});
 document.getElementById("matched").textContent=s===""?"":"matched frames: "+(100*Math.min(1,hit/total)).toFixed(1)+"% of the width (nested matches count twice)";}
frames.forEach(function(f){f.style.cursor="pointer";f.addEventListener("click",function(){zoom(f);});});
document.getElementById("reset").addEventListener("click",reset);
document.getElementById("search").addEventListener("click",search);
})();`

// share is a function's share of each side's total, over all its frames.
type share struct{ baseSelf, candSelf, baseTotal, candTotal float64 }

// functionShares merges the frames of a tree by function: self is the
// time in the function itself, total what it and its callees take, each
// stack counted once however often the function recurses in it. A
// wrapper frame added in one side moves no share of the functions it
// wraps, so they keep their colour.
func functionShares(root *Node) map[string]*share {
	out := map[string]*share{}
	get := func(name string) *share {
		s := out[name]
		if s == nil {
			s = &share{}
			out[name] = s
		}
		return s
	}
	var rec func(n *Node, open map[string]bool)
	rec = func(n *Node, open map[string]bool) {
		s := get(n.Name)
		base, cand := n.Base, n.Cand
		for _, c := range n.Children {
			base -= c.Base
			cand -= c.Cand
		}
		s.baseSelf += max(0, base)
		s.candSelf += max(0, cand)
		outer := !open[n.Name]
		if outer {
			s.baseTotal += n.Base
			s.candTotal += n.Cand
			open[n.Name] = true
		}
		for _, c := range n.Children {
			rec(c, open)
		}
		if outer {
			delete(open, n.Name)
		}
	}
	rec(root, map[string]bool{})
	return out
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
