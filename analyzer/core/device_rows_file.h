#pragma once
// The device table's file format (analyzer/rules/devices.tsv, described in its own header and in
// docs/devices.md, "The table file"): a header line naming the columns, then one tab-separated
// row per GPU; blank lines and lines starting with '#' are skipped. This file only reads text
// into rows; device_rows.cpp reads the built-in file once, device_table.cpp matches names.

#include <string_view>
#include <vector>

#include "analyzer/core/device_rows.h"
#include "trace/result.h"

namespace ampscope::analyzer {

// The rows in file order. Errors name the source, the line and the column, the row (by its name)
// and the column (by its header name), what was found and what was expected, e.g.
// `devices.tsv:12:40: row "H100 SXM", column fp16_tflops: found "fast", expected a number`.
trace::Result<std::vector<DeviceRow>> parseDeviceRows(std::string_view tsv_text, std::string_view source_name);

}  // namespace ampscope::analyzer
