#include "trace/db/profile_schema.h"

namespace ampscope::trace::db {

std::string_view schemaSql() {
  // Times are integer nanoseconds on the recording tool's clock; names are ids into strings.
  // Rows carry no derived links (launch, operator): the correlator recomputes them on load.
  return R"sql(
CREATE TABLE IF NOT EXISTS ampscope_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS devices (
  id INTEGER NOT NULL, name_id INTEGER NOT NULL, compute_major INTEGER NOT NULL,
  compute_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, total_memory_bytes INTEGER NOT NULL,
  kind INTEGER NOT NULL DEFAULT 0, sm_clock_khz INTEGER NOT NULL DEFAULT 0,
  memory_bandwidth_bytes_per_s INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS threads (
  id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, name_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS launches (
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL, thread_id INTEGER NOT NULL, cbid INTEGER NOT NULL, api INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS kernel_configs (
  id INTEGER PRIMARY KEY, name_id INTEGER NOT NULL, device INTEGER NOT NULL,
  stream INTEGER NOT NULL, grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL,
  grid_z INTEGER NOT NULL, block_x INTEGER NOT NULL, block_y INTEGER NOT NULL,
  block_z INTEGER NOT NULL, registers_per_thread INTEGER NOT NULL,
  shared_memory_bytes INTEGER NOT NULL, pid INTEGER NOT NULL DEFAULT -1);
CREATE TABLE IF NOT EXISTS kernels (
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  config_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memory_ops (
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  bytes INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL, kind INTEGER NOT NULL,
  direction INTEGER NOT NULL, src_kind INTEGER NOT NULL, dst_kind INTEGER NOT NULL,
  pid INTEGER NOT NULL DEFAULT -1);
CREATE TABLE IF NOT EXISTS synchronizations (
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
  device INTEGER NOT NULL, stream INTEGER NOT NULL, kind INTEGER NOT NULL,
  pid INTEGER NOT NULL DEFAULT -1);
CREATE TABLE IF NOT EXISTS ranges (
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, name_id INTEGER NOT NULL,
  thread_id INTEGER NOT NULL, kind INTEGER NOT NULL, phase INTEGER NOT NULL,
  op_id INTEGER NOT NULL, shapes_id INTEGER NOT NULL, dtypes_id INTEGER NOT NULL,
  layer_id INTEGER NOT NULL, sequence_number INTEGER NOT NULL, fwd_thread_tid INTEGER NOT NULL,
  domain_id INTEGER NOT NULL DEFAULT 0, category INTEGER NOT NULL DEFAULT 0,
  payload_id INTEGER NOT NULL DEFAULT 0, text_form INTEGER NOT NULL DEFAULT 0,
  module_path_id INTEGER NOT NULL DEFAULT 0, record_op_id INTEGER NOT NULL DEFAULT -1,
  arguments_id INTEGER NOT NULL DEFAULT 0, strides_id INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS counters (
  time_ns INTEGER NOT NULL, name_id INTEGER NOT NULL, step INTEGER NOT NULL, value REAL NOT NULL);
CREATE TABLE IF NOT EXISTS gradient_bins (
  step INTEGER NOT NULL, time_ns INTEGER NOT NULL, tensor_id INTEGER NOT NULL,
  exponent INTEGER NOT NULL, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS memory_events (
  time_ns INTEGER NOT NULL, bytes INTEGER NOT NULL, address INTEGER NOT NULL,
  total_allocated INTEGER NOT NULL, total_reserved INTEGER NOT NULL, device_kind INTEGER NOT NULL,
  device INTEGER NOT NULL, thread_id INTEGER NOT NULL, pid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS metric_samples (
  start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, device INTEGER NOT NULL,
  metric_id INTEGER NOT NULL, value REAL NOT NULL);
CREATE TABLE IF NOT EXISTS kernel_metrics (
  id INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  kernel_name_id INTEGER NOT NULL, correlation_id INTEGER NOT NULL, device INTEGER NOT NULL,
  pid INTEGER NOT NULL, times_measured INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS kernel_metric_values (
  range_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, value REAL NOT NULL);
CREATE TABLE IF NOT EXISTS import_stats (
  section TEXT NOT NULL, key TEXT NOT NULL, value INTEGER NOT NULL, place TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (section, key));
)sql";
}

}  // namespace ampscope::trace::db
