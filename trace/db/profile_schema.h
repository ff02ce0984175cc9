#pragma once
// ampscope's own profile database: table layout and version. docs/profile_database.md describes
// every column; keep the two in step.

#include <string_view>

namespace ampscope::trace::db {

// A reader accepts any minor version of its major version (minor versions only add columns or
// tables that older readers may ignore) and refuses a newer major version.
inline constexpr int kSchemaMajor = 1;
// 1.1: devices.kind, ranges.domain_id/category/payload_id, gradient_bins, import_stats "lost".
// 1.2: ranges.text_form/module_path_id/record_op_id (what the range normaliser read).
// 1.3: ranges.arguments_id (the argument values of an operator call).
// 1.4: kernel_configs.pid, memory_ops.pid, synchronizations.pid (the process of a GPU record:
//      correlation ids and streams are numbered per process).
// 1.5: ranges.strides_id (the inputs' strides, which tell a matrix operand's layout).
// 1.6: import_stats.place (where a reason not understood was first met in the source file);
//      devices.sm_clock_khz, devices.memory_bandwidth_bytes_per_s (what the device peaks are
//      derived from where the table has no row for the GPU).
// 1.7: memory_events (allocations and frees, with the allocator's totals where recorded).
// 1.8: metric_samples (device-wide hardware metric samples), kernel_metrics and
//      kernel_metric_values (a range profiler's metrics per kernel launch).
inline constexpr int kSchemaMinor = 8;

// The table that marks a file as an ampscope profile.
inline constexpr std::string_view kMetaTable = "ampscope_meta";

// CREATE statements for every table, in one string.
std::string_view schemaSql();

}  // namespace ampscope::trace::db
