// promcheck: the checks kube-tidy's tests need from Prometheus's own code.
//
//	promcheck metrics        < exposition   lint a text exposition as `promtool check metrics` does
//	promcheck rules FILE...                 load rule files as `promtool check rules` does
//	promcheck names          < ["expr", ...] the metric names each PromQL expression selects (JSON)
//
// Exit 0: fine; 1: problems (printed); 2: usage or I/O error.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	if len(os.Args) < 2 {
		fail(2, "usage: promcheck metrics|rules FILE...|names")
	}
	switch os.Args[1] {
	case "metrics":
		checkMetrics()
	case "rules":
		checkRules(os.Args[2:])
	case "names":
		names()
	default:
		fail(2, "unknown command "+os.Args[1])
	}
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// The same parser and lint as promtool's `check metrics`; a parse error is a problem too.
func checkMetrics() {
	problems, err := promlint.New(os.Stdin).Lint()
	if err != nil {
		fail(1, "error while linting: "+err.Error())
	}
	for _, p := range problems {
		fmt.Printf("%s: %s\n", p.Metric, p.Text)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println("metrics: ok")
}

// Loads each file with the rule-file loader Prometheus itself uses (groups, expressions
// parsed, templates checked), as `promtool check rules` does, and counts the rules.
func checkRules(files []string) {
	if len(files) == 0 {
		fail(2, "rules: no files")
	}
	bad := false
	for _, f := range files {
		groups, errs := rulefmt.ParseFile(f, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
		if len(errs) > 0 {
			bad = true
			for _, e := range errs {
				fmt.Printf("%s: %v\n", f, e)
			}
			continue
		}
		n := 0
		for _, g := range groups.Groups {
			n += len(g.Rules)
		}
		fmt.Printf("%s: %d rules found\n", f, n)
	}
	if bad {
		os.Exit(1)
	}
}

// Reads a JSON array of expressions; writes, for each, the sorted metric names its vector
// selectors name (by the metric name or an equality matcher on __name__).
func names() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(2, err.Error())
	}
	var exprs []string
	if err := json.Unmarshal(in, &exprs); err != nil {
		fail(2, "names: stdin must be a JSON array of strings: "+err.Error())
	}
	out := make([][]string, len(exprs))
	p := parser.NewParser(parser.Options{})
	for i, src := range exprs {
		expr, err := p.ParseExpr(src)
		if err != nil {
			fail(1, fmt.Sprintf("expression %d: %v: %s", i, err, src))
		}
		set := map[string]bool{}
		parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
			if vs, ok := node.(*parser.VectorSelector); ok {
				name := vs.Name
				for _, m := range vs.LabelMatchers {
					if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
						name = m.Value
					}
				}
				set[name] = true
			}
			return nil
		})
		out[i] = []string{}
		for n := range set {
			out[i] = append(out[i], n)
		}
		sort.Strings(out[i])
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(2, err.Error())
	}
}
