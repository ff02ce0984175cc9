#pragma once
// Nsight Systems' GPU metrics (nsys profile --gpu-metrics-devices, older --gpu-metrics-device):
// device-wide hardware counters (SM activity, Tensor Core activity, DRAM and PCIe throughput, ...)
// sampled on a fixed period, one value per metric per sample. Exports of Nsight Systems 2023.x and
// later hold them in GPU_METRICS, named by TARGET_INFO_GPU_METRICS; older ones only in
// GENERIC_EVENTS, all metrics of one sample in one JSON object. docs/formats/nsight_systems.md
// says what is read and where the time convention comes from.

#include "trace/result.h"
#include "trace/trace_model.h"

namespace ampscope::trace::db {
class SqliteDatabase;
}

namespace ampscope::analyzer::import {

// Appends the export's GPU metric samples to out.metric_samples, each on the device ordinal its
// GPU's kernels carry (TARGET_INFO_GPU's cuDevice), each sample's interval closed. A sample that
// cannot be placed (a metric or GPU the export does not name, no time, a negative value) is
// counted in out.import_stats with its row and left out. An export without the tables has none.
trace::Status readGpuMetrics(trace::db::SqliteDatabase& db, trace::Trace& out);

}  // namespace ampscope::analyzer::import
