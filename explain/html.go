package explain

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"html"
	"io"
	"strings"
)

//go:embed report.html
var reportPage string

// Report is what an HTML report shows: a run's answers, each with its
// explanation.
type Report struct {
	// Engine is "psl", "mln" or "kgc": it says what the explanations are
	// (*PSLExplanation, *MLNExplanation or KGCQuery).
	Engine string `json:"engine"`
	// Title heads the page; Summary is a line about the run under it;
	// Example is an atom for the search box's placeholder.
	Title   string `json:"title"`
	Summary string `json:"summary"`
	Example string `json:"-"`
	// Scoring is the knowledge-graph completion scoring (kgc only).
	Scoring string `json:"scoring,omitempty"`
	Items   []Item `json:"items"`
}

// Item is one answer: an atom (or a candidate of a query) with its value
// (or score) and explanation. Group names what it belongs to (its
// predicate, or its query).
type Item struct {
	Name        string  `json:"name"`
	Group       string  `json:"group,omitempty"`
	Value       float64 `json:"value"`
	Explanation any     `json:"explanation"`
}

// WriteHTML writes the report as one self-contained HTML page (no server,
// no network): the answers, searchable by name, and each one's
// explanation, with links from a ground rule's atoms to their own
// explanations. Every figure shown carries its exact value in a data-v
// attribute.
func (r *Report) WriteHTML(w io.Writer) error {
	return r.WriteHTMLContext(context.Background(), w)
}

// WriteHTMLContext is WriteHTML stopping, with the context's error, once
// ctx is done: the answers are written one at a time (never the whole
// report built in memory first) and the context looked at between them.
func (r *Report) WriteHTMLContext(ctx context.Context, w io.Writer) error {
	head, tail, ok := strings.Cut(reportPage, "{{DATA}}")
	if !ok {
		return errors.New("explain: the report page has no data slot")
	}
	fill := strings.NewReplacer("{{TITLE}}", html.EscapeString(r.Title), "{{EXAMPLE}}", html.EscapeString(r.Example))
	if _, err := io.WriteString(w, fill.Replace(head)); err != nil {
		return err
	}
	// The fields but the items, then the items one by one. The encoder
	// escapes <, > and &, so the data cannot close its <script> element.
	fields := *r
	fields.Items = nil
	b, err := json.Marshal(fields) // {...,"items":null}
	if err != nil {
		return err
	}
	b, ok = bytes.CutSuffix(b, []byte(`"items":null}`))
	if !ok {
		return errors.New("explain: the report's fields do not end with its items")
	}
	if _, err := w.Write(append(b, `"items":[`...)); err != nil {
		return err
	}
	for i := range r.Items {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		b, err := json.Marshal(&r.Items[i])
		if err != nil {
			return err
		}
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "]}\n"); err != nil {
		return err
	}
	_, err = io.WriteString(w, fill.Replace(tail))
	return err
}
