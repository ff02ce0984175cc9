#pragma once
// The device table's rows and what tells each apart by name (device_table.cpp matches names
// against them; deviceTable() lists their specs in the same order).

#include <vector>

#include "analyzer/core/device_names.h"
#include "analyzer/core/device_table.h"

namespace ampscope::analyzer {

struct DeviceRow {
  DeviceSpec spec;
  // How findDevice knows the row: the model as one lower-case word ("h100", "v100s",
  // "rtx4090", "titanrtx"), the board, the memory size a name states where rows of one model
  // differ in bandwidth by it (0: any), the "Ti" and "SUPER" of a GeForce name.
  const char* family;
  BoardForm form;
  int memory_gb;
  bool ti;
  bool super = false;
  // The device memory (GB) that tells the row from its board's other rows where names do not
  // (GH200's 96 GB HBM3 and 144 GB HBM3e boards); 0: memory_gb.
  int device_memory_gb = 0;

  int deviceMemoryGb() const { return device_memory_gb != 0 ? device_memory_gb : memory_gb; }
};

// Every row, oldest architecture first; every number's source: docs/devices.md.
const std::vector<DeviceRow>& deviceRows();

}  // namespace ampscope::analyzer
