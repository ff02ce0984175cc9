// The built-in device rows: analyzer/rules/devices.tsv, compiled into the binary as text by
// analyzer/CMakeLists.txt and parsed once, at first use.
#include "analyzer/core/device_rows.h"

#include <utility>

#include "analyzer/core/device_rows_file.h"
#include "analyzer/devices_data.h"  // generated from rules/devices.tsv

namespace ampscope::analyzer {
namespace {

struct BuiltinRows {
  std::vector<DeviceRow> rows;
  trace::Status status;
};

const BuiltinRows& builtinRows() {
  static const BuiltinRows loaded = [] {
    BuiltinRows out;
    trace::Result<std::vector<DeviceRow>> parsed =
        parseDeviceRows(generated::kDevicesTsv, "analyzer/rules/devices.tsv (built in)");
    if (parsed) {
      out.rows = std::move(*parsed);
    } else {
      out.status = parsed.error();
    }
    return out;
  }();
  return loaded;
}

}  // namespace

const std::vector<DeviceRow>& deviceRows() { return builtinRows().rows; }

trace::Status deviceRowsStatus() { return builtinRows().status; }

}  // namespace ampscope::analyzer
