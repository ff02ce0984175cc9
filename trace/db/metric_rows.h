#pragma once
// The hardware-metric tables of a profile (schema 1.8): metric_samples (device-wide samples of a
// metric over time) and kernel_metrics with kernel_metric_values (one profiled range per kernel
// launch and its metric values). A range's values live in a table of their own, one row per
// metric, because the metrics recorded differ by chip and by tool.

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {

class SqliteDatabase;

// Reads the three tables into trace.metric_samples and trace.kernel_metrics, checking every id
// against trace.strings and kernel_metrics; an error names the table, the row and the column.
// Profiles older than 1.8 have none of the tables and read as having recorded no metrics.
Status readMetricRows(SqliteDatabase& db, Trace& trace);

}  // namespace ampscope::trace::db
