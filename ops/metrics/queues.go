package metrics

import (
	"log/slog"
	"sync"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
)

// QueueInspector reads asynq's queues; *asynq.Inspector is one.
type QueueInspector interface {
	Queues() ([]string, error)
	GetQueueInfo(queue string) (*asynq.QueueInfo, error)
}

var (
	queueTasksDesc = prometheus.NewDesc("msgsvc_queue_tasks",
		"Tasks in an asynq queue, by queue and state (pending, active, scheduled, retry, archived).",
		[]string{"queue", "state"}, nil)
	queueLatencyDesc = prometheus.NewDesc("msgsvc_queue_latency_seconds",
		"Age of the oldest pending task of an asynq queue.", []string{"queue"}, nil)
)

// queueCollector reads the queue depths from Redis at each scrape, so they
// are current whichever process runs the workers.
type queueCollector struct {
	mu   sync.Mutex
	insp QueueInspector
}

// queues is the collector Registry holds; SetQueueInspector points it at
// Redis.
var queues = &queueCollector{}

// SetQueueInspector makes /metrics report the queue depths insp reads; nil
// stops it.
func SetQueueInspector(insp QueueInspector) {
	queues.mu.Lock()
	defer queues.mu.Unlock()
	queues.insp = insp
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueTasksDesc
	ch <- queueLatencyDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	insp := c.insp
	c.mu.Unlock()
	if insp == nil {
		return
	}
	names, err := insp.Queues()
	if err != nil {
		slog.Warn("metrics: list asynq queues", "err", err)
		return
	}
	for _, q := range names {
		info, err := insp.GetQueueInfo(q)
		if err != nil {
			slog.Warn("metrics: read asynq queue", "queue", q, "err", err)
			continue
		}
		for state, n := range map[string]int{"pending": info.Pending, "active": info.Active,
			"scheduled": info.Scheduled, "retry": info.Retry, "archived": info.Archived} {
			ch <- prometheus.MustNewConstMetric(queueTasksDesc, prometheus.GaugeValue, float64(n), q, state)
		}
		ch <- prometheus.MustNewConstMetric(queueLatencyDesc, prometheus.GaugeValue, info.Latency.Seconds(), q)
	}
}
