#pragma once
// The device table's rows and what tells each apart by name (device_table.cpp matches names
// against them; deviceTable() lists their specs in the same order). The rows are data:
// analyzer/rules/devices.tsv, compiled into the binary and read once (device_rows_file.h).

#include <string>
#include <vector>

#include "analyzer/core/device_names.h"
#include "analyzer/core/device_table.h"
#include "trace/result.h"

namespace ampscope::analyzer {

struct DeviceRow {
  DeviceSpec spec;
  // How findDevice knows the row: the model as one lower-case word ("h100", "v100s",
  // "rtx4090", "titanrtx"), the board, the memory size a name states where rows of one model
  // differ in bandwidth by it (0: any), the "Ti" and "SUPER" of a GeForce name.
  std::string family;
  BoardForm form = BoardForm::kAny;
  int memory_gb = 0;
  bool ti = false;
  bool super = false;
  // The device memory (GB) that tells the row from its board's other rows where names do not
  // (GH200's 96 GB HBM3 and 144 GB HBM3e boards); 0: memory_gb.
  int device_memory_gb = 0;

  int deviceMemoryGb() const { return device_memory_gb != 0 ? device_memory_gb : memory_gb; }
};

// Every row of the built-in file, oldest architecture first; every number's source:
// docs/devices.md. Should the file fail to parse (only possible when it was edited without
// running the tests), there are no rows and deviceRowsStatus() says why.
const std::vector<DeviceRow>& deviceRows();
trace::Status deviceRowsStatus();

}  // namespace ampscope::analyzer
