package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/budget"
)

// registerBudgetMetrics shows the CPU budget's state on /metrics, read when
// scraped: its units, those taken, and the tasks waiting by priority. A
// queue that stays long says the server has more heavy work than cores.
func registerBudgetMetrics(reg prometheus.Registerer, b *budget.Budget) error {
	if b == nil {
		return nil
	}
	units := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "ayoayo", Name: "cpu_budget_units", Help: "Units of the CPU budget for heavy work (--cpu-budget).",
	}, func() float64 { return float64(b.Size()) })
	used := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "ayoayo", Name: "cpu_budget_used", Help: "Units of the CPU budget taken now by AI moves, analyses, generations and table builds.",
	}, func() float64 { return float64(b.Stats().Used) })
	cs := []prometheus.Collector{units, used}
	for p := budget.AIReply; p <= budget.Stock; p++ {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "ayoayo", Name: "cpu_budget_waiting", Help: "Tasks waiting for a unit of the CPU budget now, by priority.",
			ConstLabels: prometheus.Labels{"priority": p.String()},
		}, func() float64 { return float64(b.Stats().Waiting[p]) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
