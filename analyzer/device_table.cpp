#include "analyzer/device_table.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace ampscope::analyzer {
namespace {

// The board a row is: names say it ("SXM4", "PCIe", "NVL") or imply it ("DGXS", "PG509").
enum class Form : std::uint8_t { kAny, kSxm, kPcie, kNvl };

struct Row {
  DeviceSpec spec;
  // How findDevice knows the row: the model as one lower-case word ("h100", "v100s",
  // "rtx4090", "titanrtx"), the board, the memory size where rows of one model differ in
  // bandwidth by it (0: any), and the "Ti" of a GeForce name.
  const char* family;
  Form form;
  int memory_gb;
  bool ti;
};

// One row per product. Rates are dense (no sparsity) at the boost clock, in TFLOP/s (TOP/s for
// INT8); memory in GB/s. FP16/BF16 (and on GeForce FP8) are the FP32-accumulate figures: the
// mode mixed-precision training runs, and on GeForce half the FP16-accumulate rate. FP64 is the
// FP64 Tensor Core rate where the part has one; on GeForce, T4, A10, L4 and L40S, which list none,
// it is FP32 x 1/32 (Turing) or x 1/64 (8.6, 8.9, 12.0). "derived" means SMs x boost clock x the
// per-SM rate NVIDIA documents for the architecture, where no NVIDIA table gives the figure.
// Every number and its source: docs/devices.md.
const std::vector<Row>& rows() {
  // Columns: name, architecture, compute capability, SMs, GB/s, FP32, TF32, FP16, BF16, FP8,
  // FP4, INT8, FP64, sources; then family, form, memory GB, Ti.
  static const std::vector<Row> kRows = {
      // Tesla V100 datasheet; Volta whitepaper Table 1 (GV100 SXM2, 1530 MHz). No TF32/BF16/INT8
      // Tensor Cores: INT8 runs as dp4a on the CUDA cores, which is not a Tensor Core rate (0).
      {{"V100 SXM2", "Volta", 7, 0, 80, 900, 15.7, 0, 125, 0, 0, 0, 0, 7.8,
        "NVIDIA Tesla V100 datasheet; Volta architecture whitepaper, Table 1"},
       "v100", Form::kSxm, 0, false},
      // Tesla V100 datasheet (PCIe, 250 W).
      {{"V100 PCIe", "Volta", 7, 0, 80, 900, 14, 0, 112, 0, 0, 0, 0, 7,
        "NVIDIA Tesla V100 datasheet"},
       "v100", Form::kPcie, 0, false},
      // V100 datasheet, V100S column (2019 update).
      {{"V100S PCIe", "Volta", 7, 0, 80, 1134, 16.4, 0, 130, 0, 0, 0, 0, 8.2,
        "NVIDIA V100 datasheet (V100S PCIe column)"},
       "v100s", Form::kPcie, 0, false},
      // T4 datasheet (FP16 mixed precision 65, INT8 130); FP64 derived: 1/32 of FP32 on Turing.
      {{"T4", "Turing", 7, 5, 40, 320, 8.1, 0, 65, 0, 0, 0, 130, 0.25,
        "NVIDIA T4 datasheet; FP64 derived (1/32 of FP32, Turing whitepaper)"},
       "t4", Form::kAny, 0, false},
      // Turing whitepaper per-SM rates at the reference boost clock (1620 MHz): derived.
      {{"RTX 2070", "Turing", 7, 5, 36, 448, 7.5, 0, 29.9, 0, 0, 0, 119.4, 0.23,
        "derived: Turing whitepaper per-SM rates, 36 SMs, 1620 MHz reference boost"},
       "rtx2070", Form::kAny, 0, false},
      // Same derivation at 1710 MHz.
      {{"RTX 2080", "Turing", 7, 5, 46, 448, 10.1, 0, 40.3, 0, 0, 0, 161.1, 0.31,
        "derived: Turing whitepaper per-SM rates, 46 SMs, 1710 MHz reference boost"},
       "rtx2080", Form::kAny, 0, false},
      // Turing whitepaper Table 1, reference (not Founders Edition) column.
      {{"RTX 2080 Ti", "Turing", 7, 5, 68, 616, 13.4, 0, 53.8, 0, 0, 0, 215.2, 0.42,
        "NVIDIA Turing architecture whitepaper / Turing In-Depth, Table 1 (reference card)"},
       "rtx2080", Form::kAny, 0, true},
      // TITAN RTX runs FP32 accumulate at the full rate; Turing whitepaper Table 1, Quadro RTX
      // 6000 column (the same 72-SM TU102 at 1770 MHz, 672 GB/s).
      {{"TITAN RTX", "Turing", 7, 5, 72, 672, 16.3, 0, 130.5, 0, 0, 0, 261, 0.51,
        "NVIDIA TITAN RTX product page; Turing whitepaper Table 1 (Quadro RTX 6000 column)"},
       "titanrtx", Form::kAny, 0, false},
      // GA10x per-SM rates (GA102 whitepaper) at 1777 MHz: derived; the RTX 3060 12GB.
      {{"RTX 3060", "Ampere", 8, 6, 28, 360, 12.7, 12.7, 25.5, 25.5, 0, 0, 101.9, 0.2,
        "derived: GA102 whitepaper per-SM rates, 28 SMs, 1777 MHz boost"},
       "rtx3060", Form::kAny, 0, false},
      // GA102 whitepaper, Appendix A (RTX 3070).
      {{"RTX 3070", "Ampere", 8, 6, 46, 448, 20.3, 20.3, 40.6, 40.6, 0, 0, 162.6, 0.32,
        "NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A"},
       "rtx3070", Form::kAny, 0, false},
      // GA102 whitepaper, Table 1 (RTX 3080 10GB).
      {{"RTX 3080", "Ampere", 8, 6, 68, 760, 29.8, 29.8, 59.5, 59.5, 0, 0, 238, 0.47,
        "NVIDIA Ampere GA102 GPU architecture whitepaper, Table 1"},
       "rtx3080", Form::kAny, 0, false},
      // GA102 whitepaper, Appendix A (RTX 3090).
      {{"RTX 3090", "Ampere", 8, 6, 82, 936, 35.6, 35.6, 71, 71, 0, 0, 284, 0.56,
        "NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A"},
       "rtx3090", Form::kAny, 0, false},
      // A10 datasheet; FP64 derived (1/64 of FP32 on GA10x).
      {{"A10", "Ampere", 8, 6, 72, 600, 31.2, 62.5, 125, 125, 0, 0, 250, 0.49,
        "NVIDIA A10 datasheet; FP64 derived (1/64 of FP32)"},
       "a10", Form::kAny, 0, false},
      // A30 datasheet (FP64 Tensor Core 10.3).
      {{"A30", "Ampere", 8, 0, 56, 933, 10.3, 82, 165, 165, 0, 0, 330, 10.3,
        "NVIDIA A30 datasheet"},
       "a30", Form::kAny, 0, false},
      // A100 datasheet, 80GB SXM column; A100 whitepaper Table 1 (108 SMs, 1410 MHz).
      {{"A100 SXM", "Ampere", 8, 0, 108, 2039, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (80GB SXM); A100 architecture whitepaper, Table 1"},
       "a100", Form::kSxm, 80, false},
      // A100 datasheet, 40GB SXM column.
      {{"A100 SXM 40GB", "Ampere", 8, 0, 108, 1555, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (40GB SXM)"},
       "a100", Form::kSxm, 40, false},
      // A100 datasheet, 80GB PCIe column (same peak rates, 1935 GB/s).
      {{"A100 PCIe", "Ampere", 8, 0, 108, 1935, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (80GB PCIe)"},
       "a100", Form::kPcie, 80, false},
      // A100 datasheet, 40GB PCIe column.
      {{"A100 PCIe 40GB", "Ampere", 8, 0, 108, 1555, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (40GB PCIe)"},
       "a100", Form::kPcie, 40, false},
      // Ada per-SM rates (Ada whitepaper) at 2475 MHz: derived; NVIDIA's "466 AI TOPS" is the
      // sparse INT8 figure, twice the 233.2 here.
      {{"RTX 4070", "Ada", 8, 9, 46, 504, 29.1, 29.1, 58.3, 58.3, 116.6, 0, 233.2, 0.45,
        "derived: Ada whitepaper per-SM rates, 46 SMs, 2475 MHz boost; RTX 4070 product page"},
       "rtx4070", Form::kAny, 0, false},
      // Ada whitepaper, Appendix A (RTX 4080 16GB).
      {{"RTX 4080", "Ada", 8, 9, 76, 716.8, 48.7, 48.7, 97.5, 97.5, 194.9, 0, 389.9, 0.76,
        "NVIDIA Ada GPU architecture whitepaper, Appendix A"},
       "rtx4080", Form::kAny, 0, false},
      // Ada whitepaper v2.1, Appendix A (FP8 with FP32 accumulate as corrected in v2.02).
      {{"RTX 4090", "Ada", 8, 9, 128, 1008, 82.6, 82.6, 165.2, 165.2, 330.3, 0, 660.6, 1.29,
        "NVIDIA Ada GPU architecture whitepaper, Appendix A"},
       "rtx4090", Form::kAny, 0, false},
      // L4 datasheet (sparse figures halved); FP64 derived (1/64 of FP32).
      {{"L4", "Ada", 8, 9, 58, 300, 30.3, 60, 121, 121, 242.5, 0, 242.5, 0.47,
        "NVIDIA L4 datasheet; Ada whitepaper v2.01; FP64 derived (1/64 of FP32)"},
       "l4", Form::kAny, 0, false},
      // L40S datasheet; FP64 derived (1/64 of FP32).
      {{"L40S", "Ada", 8, 9, 142, 864, 91.6, 183, 362.05, 362.05, 733, 0, 733, 1.43,
        "NVIDIA L40S datasheet; FP64 derived (1/64 of FP32)"},
       "l40s", Form::kAny, 0, false},
      // H100 datasheet (SXM); Hopper whitepaper for the unrounded dense figures.
      {{"H100 SXM", "Hopper", 9, 0, 132, 3350, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 67,
        "NVIDIA H100 datasheet (SXM); H100 architecture whitepaper"},
       "h100", Form::kSxm, 0, false},
      // H100 datasheet (PCIe, sparse figures halved).
      {{"H100 PCIe", "Hopper", 9, 0, 114, 2000, 51, 378, 756.5, 756.5, 1513, 0, 1513, 51,
        "NVIDIA H100 datasheet (PCIe)"},
       "h100", Form::kPcie, 0, false},
      // H100 datasheet (NVL, per GPU, sparse figures halved).
      {{"H100 NVL", "Hopper", 9, 0, 132, 3900, 60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5, 60,
        "NVIDIA H100 datasheet (H100 NVL, per GPU)"},
       "h100", Form::kNvl, 0, false},
      // H800 datasheet: H100 SXM's math and memory; FP64 cut to 1 TFLOPS by the export rules.
      {{"H800 SXM", "Hopper", 9, 0, 132, 3350, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 1,
        "NVIDIA H800 datasheet (SXM)"},
       "h800", Form::kSxm, 0, false},
      // H200 datasheet (SXM): H100 SXM's math with 4.8 TB/s HBM3e.
      {{"H200", "Hopper", 9, 0, 132, 4800, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 67,
        "NVIDIA H200 datasheet (SXM)"},
       "h200", Form::kSxm, 0, false},
      // Blackwell architecture technical brief and DGX B200 datasheet (HGX B200 at 1000 W,
      // sparse figures halved); 148 SMs as the device reports them.
      {{"B200", "Blackwell", 10, 0, 148, 8000, 80, 1100, 2250, 2250, 4500, 9000, 4500, 40,
        "NVIDIA Blackwell architecture technical brief (HGX B200); DGX B200 datasheet"},
       "b200", Form::kSxm, 0, false},
      // Blackwell technical brief, GB200 per GPU (1200 W), sparse figures halved; 152 SMs as
      // the device reports them (no NVIDIA table gives the SM count).
      {{"GB200", "Blackwell", 10, 0, 152, 8000, 90, 1250, 2500, 2500, 5000, 10000, 5000, 45,
        "NVIDIA Blackwell architecture technical brief (GB200, per GPU); GB200 NVL72 page"},
       "gb200", Form::kAny, 0, false},
      // RTX Blackwell per-SM rates (RTX Blackwell whitepaper) at 2617 MHz: derived; FP4 is
      // NVIDIA's 1801 sparse AI TOPS halved.
      {{"RTX 5080", "Blackwell", 12, 0, 84, 960, 56.3, 56.3, 112.6, 112.6, 225.1, 900.5, 450.2,
        0.88, "derived: RTX Blackwell whitepaper per-SM rates, 84 SMs, 2617 MHz boost; RTX 5080 "
        "product page"},
       "rtx5080", Form::kAny, 0, false},
      // RTX Blackwell whitepaper, Appendix A (FP4 with FP32 accumulate runs at the full rate).
      {{"RTX 5090", "Blackwell", 12, 0, 170, 1792, 104.8, 104.8, 209.5, 209.5, 419, 1676, 838,
        1.64, "NVIDIA RTX Blackwell GPU architecture whitepaper, Appendix A"},
       "rtx5090", Form::kAny, 0, false},
  };
  return kRows;
}

// ---- names -------------------------------------------------------------------------------

// What a GPU name says, read as runs of letters and runs of digits ("A100-SXM4-80GB" is
// a 100 sxm 4 80 gb): whole runs compare, so "a 10" never matches "a 100", nor "l 4" "l 40 s".
struct NameKey {
  std::string family;
  Form form = Form::kAny;
  int memory_gb = 0;
  bool ti = false;
  bool super = false;
};

bool isDigits(const std::string& atom) {
  return !atom.empty() && std::isdigit(static_cast<unsigned char>(atom[0])) != 0;
}

std::vector<std::string> atomsOf(std::string_view name) {
  std::vector<std::string> atoms;
  std::string atom;
  for (char raw : name) {
    const auto c = static_cast<unsigned char>(raw);
    if (std::isalnum(c) == 0) {
      if (!atom.empty()) atoms.push_back(std::move(atom));
      atom.clear();
      continue;
    }
    const bool digit = std::isdigit(c) != 0;
    if (!atom.empty() && digit != isDigits(atom)) {
      atoms.push_back(std::move(atom));
      atom.clear();
    }
    atom.push_back(static_cast<char>(std::tolower(c)));
  }
  if (!atom.empty()) atoms.push_back(std::move(atom));
  return atoms;
}

// Reads a name; nullopt when any part of it is unknown, so that a variant the table lacks
// ("RTX 4090 D", "RTX 3080 Ti", "A10G", a MIG slice) is not taken for its larger sibling.
std::optional<NameKey> parseName(std::string_view name) {
  const std::vector<std::string> atoms = atomsOf(name);
  NameKey key;
  bool form_conflict = false;
  const auto setForm = [&](Form form) {
    if (key.form != Form::kAny && key.form != form) form_conflict = true;
    key.form = form;
  };
  const auto at = [&](std::size_t i) -> const std::string& {
    static const std::string kPastEnd;
    return i < atoms.size() ? atoms[i] : kPastEnd;
  };
  std::size_t i = 0;
  while (i < atoms.size()) {
    const std::string& atom = atoms[i];
    if (isDigits(atom)) {
      // A number is a memory size ("80GB") or a part of the name this reading does not know.
      if (at(i + 1) != "gb" || atom.size() > 4) return std::nullopt;
      key.memory_gb = std::stoi(atom);
      i += 2;
    } else if (atom == "nvidia" || atom == "tesla" || atom == "geforce") {
      ++i;  // vendor and brand words say nothing about the row
    } else if (atom == "sxm") {
      setForm(Form::kSxm);
      // SXM2, SXM4, SXM5; but "SXM 40GB" is a memory size after the board.
      i += isDigits(at(i + 1)) && at(i + 2) != "gb" ? 2 : 1;
    } else if (atom == "dgxs" || atom == "dgx") {
      setForm(Form::kSxm);  // DGX (Station) boards are NVLink modules at the SXM clocks
      ++i;
    } else if (atom == "pcie") {
      setForm(Form::kPcie);
      ++i;
    } else if (atom == "pci") {
      setForm(Form::kPcie);
      i += at(i + 1) == "e" ? 2 : 1;
    } else if (atom == "nvl") {
      setForm(Form::kNvl);
      ++i;
    } else if (atom == "hbm") {
      // The memory type ("HBM3", "HBM2e"): "NVIDIA H100 80GB HBM3" is the SXM part, which is
      // also the row the bare family name picks.
      i += isDigits(at(i + 1)) ? 2 : 1;
      if (at(i) == "e") ++i;
    } else if (atom == "pg" && isDigits(at(i + 1))) {
      // A board number ("A100-PG509-200"): PG509 is the SXM4 A100 board; the SKU after it
      // tells the memory size, which chooseRecordedDevice reads from the trace instead.
      if (at(i + 1) == "509") setForm(Form::kSxm);
      i += isDigits(at(i + 2)) && at(i + 3) != "gb" ? 3 : 2;
    } else if (atom == "ti") {
      key.ti = true;
      ++i;
    } else if (atom == "super") {
      key.super = true;
      ++i;
    } else if (key.family.empty() && atom == "titan" && !at(i + 1).empty() &&
               !isDigits(at(i + 1))) {
      key.family = atom + at(i + 1);  // "TITAN RTX", "TITAN V"
      i += 2;
    } else if (key.family.empty() && isDigits(at(i + 1))) {
      // The model: letters and a number ("H100", "GB200", "RTX 4090", "rtx4090"), and a
      // one-letter suffix that makes another product ("V100S", "L40S", "A10G", "RTX 4090 D").
      key.family = atom + at(i + 1);
      i += 2;
      const std::string& suffix = at(i);
      if (suffix.size() == 1 && !isDigits(suffix)) {
        key.family += suffix;
        ++i;
      }
    } else {
      return std::nullopt;
    }
  }
  if (key.family.empty() || form_conflict) return std::nullopt;
  return key;
}

// The first row of the name's family that fits what the name says: a bare family name picks the
// first row (the SXM / data-centre board, the larger memory), which the table lists first.
const Row* matchKey(const NameKey& key) {
  if (key.super) return nullptr;  // no SUPER card is in the table
  for (const Row& row : rows()) {
    if (key.family != row.family || key.ti != row.ti) continue;
    if (key.form != Form::kAny && row.form != Form::kAny && row.form != key.form) continue;
    if (key.memory_gb != 0 && row.memory_gb != 0 && row.memory_gb != key.memory_gb) continue;
    return &row;
  }
  return nullptr;
}

// rows() and deviceTable() hold the same rows in the same order.
const DeviceSpec& specOf(const Row& row) {
  return deviceTable()[static_cast<std::size_t>(&row - &rows().front())];
}

const Row& rowOf(const DeviceSpec& spec) {
  const auto& all = rows();
  return all[static_cast<std::size_t>(&spec - &deviceTable().front())];
}

// Where rows of one board differ only by memory size (A100 40GB/80GB: 1555 against 2039 GB/s)
// and the name does not say it, the device's memory does: the row of the nearest size.
const Row* refineByMemory(const Row* row, std::uint64_t total_memory_bytes) {
  if (row == nullptr || row->memory_gb == 0 || total_memory_bytes == 0) return row;
  const double memory_gib = static_cast<double>(total_memory_bytes) / (1024.0 * 1024 * 1024);
  const Row* best = row;
  for (const Row& other : rows()) {
    if (std::string_view(other.family) != row->family || other.form != row->form ||
        other.ti != row->ti || other.memory_gb == 0) {
      continue;
    }
    if (std::abs(other.memory_gb - memory_gib) < std::abs(best->memory_gb - memory_gib)) {
      best = &other;
    }
  }
  return best;
}

const DeviceSpec* specNamed(std::string_view name) {
  for (const DeviceSpec& spec : deviceTable()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string capabilityText(int major, int minor) { return fmt::format("{}.{}", major, minor); }

}  // namespace

const std::vector<DeviceSpec>& deviceTable() {
  static const std::vector<DeviceSpec> kTable = [] {
    std::vector<DeviceSpec> table;
    for (const Row& row : rows()) table.push_back(row.spec);
    return table;
  }();
  return kTable;
}

const char* deviceBasisName(DeviceBasis basis) {
  switch (basis) {
    case DeviceBasis::kNone: return "none";
    case DeviceBasis::kTraceName: return "trace_name";
    case DeviceBasis::kComputeCapability: return "compute_capability";
    case DeviceBasis::kUserNamed: return "user";
  }
  return "none";
}

const DeviceSpec* findDevice(std::string_view name) {
  const std::optional<NameKey> key = parseName(name);
  if (!key) return nullptr;
  const Row* row = matchKey(*key);
  return row == nullptr ? nullptr : &specOf(*row);
}

const DeviceSpec* deviceForComputeCapability(int major, int minor) {
  // The data-centre part of each capability (docs/devices.md says why each): 7.2 is Jetson
  // AGX Xavier, far below a V100, which stays an upper bound there; 8.7 (Orin) and 10.3
  // (B300/GB300) have no row, and 12.0 has only GeForce rows.
  switch (major * 10 + minor) {
    case 70:
    case 72: return specNamed("V100 SXM2");
    case 75: return specNamed("T4");
    case 80: return specNamed("A100 SXM");
    case 86: return specNamed("A10");
    case 89: return specNamed("L4");
    case 90: return specNamed("H100 SXM");
    case 100: return specNamed("B200");
    case 120: return specNamed("RTX 5090");
    default: return nullptr;
  }
}

DeviceChoice chooseRecordedDevice(const trace::Trace& trace, std::string_view user_gpu) {
  const trace::Device* first_gpu = nullptr;
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu) continue;
    if (first_gpu == nullptr) first_gpu = &device;
    const std::string_view name = trace.str(device.name);
    const std::optional<NameKey> key = parseName(name);
    const Row* named = key ? matchKey(*key) : nullptr;
    if (named == nullptr) continue;
    const Row* row = key->memory_gb == 0 ? refineByMemory(named, device.total_memory_bytes) : named;
    std::string reason = fmt::format("the trace names \"{}\"", name);
    if (row != named) {
      reason += fmt::format(" with {} GB of memory", row->memory_gb);
    }
    return {&specOf(*row), DeviceBasis::kTraceName, std::move(reason)};
  }
  for (const trace::Device& device : trace.devices) {
    if (device.kind != trace::DeviceKind::kGpu || device.compute_major <= 0) continue;
    const DeviceSpec* by_capability =
        deviceForComputeCapability(device.compute_major, device.compute_minor);
    if (by_capability == nullptr) continue;
    const Row* row = refineByMemory(&rowOf(*by_capability), device.total_memory_bytes);
    const std::string_view name = trace.str(device.name);
    const std::string capability = capabilityText(device.compute_major, device.compute_minor);
    std::string reason =
        name.empty()
            ? fmt::format("compute capability {} (the trace names no GPU)", capability)
            : fmt::format("compute capability {} (the table has no row named \"{}\")", capability,
                          name);
    return {&specOf(*row), DeviceBasis::kComputeCapability, std::move(reason)};
  }
  // Neither the name nor the capability: what the trace says, for the reason.
  std::string trace_says = "the trace names no GPU";
  if (first_gpu != nullptr) {
    const std::string_view name = trace.str(first_gpu->name);
    const std::string capability =
        first_gpu->compute_major > 0
            ? fmt::format(" (compute capability {})",
                          capabilityText(first_gpu->compute_major, first_gpu->compute_minor))
            : std::string();
    if (!name.empty()) {
      trace_says = fmt::format("the trace's GPU \"{}\"{} is not in the table", name, capability);
    } else if (!capability.empty()) {
      trace_says = fmt::format("the trace's GPU{} is not in the table", capability);
    }
  }
  if (!user_gpu.empty()) {
    if (const DeviceSpec* named = findDevice(user_gpu)) {
      return {named, DeviceBasis::kUserNamed, fmt::format("--gpu {} ({})", user_gpu, trace_says)};
    }
    return {nullptr, DeviceBasis::kNone,
            fmt::format("--gpu {} is not in the table ({}); known: {}", user_gpu, trace_says,
                        deviceNamesList())};
  }
  // The names the table knows are in `ampscope analyze --help` and docs/devices.md: the reason
  // stays one line that views can show.
  return {nullptr, DeviceBasis::kNone, fmt::format("{}: name it with --gpu NAME, e.g. --gpu H100-SXM", trace_says)};
}

MathPrecision ampPrecision(const DeviceSpec& device) {
  return device.bf16_tflops > 0 ? MathPrecision::kBf16 : MathPrecision::kFp16;
}

double peakTflops(const DeviceSpec& device, MathPrecision precision) {
  switch (precision) {
    case MathPrecision::kFp32Simt:
    case MathPrecision::kFp32: return device.fp32_tflops;
    case MathPrecision::kTf32: return device.tf32_tflops;
    case MathPrecision::kFp16: return device.fp16_tflops;
    case MathPrecision::kBf16: return device.bf16_tflops;
    case MathPrecision::kFp8: return device.fp8_tflops;
    case MathPrecision::kFp4: return device.fp4_tflops;
    case MathPrecision::kInt8: return device.int8_tops;
    case MathPrecision::kFp64: return device.fp64_tflops;
    case MathPrecision::kUnknown: return 0;
  }
  return 0;
}

std::string deviceNamesList() {
  std::string list;
  for (const DeviceSpec& spec : deviceTable()) {
    if (!list.empty()) list += ", ";
    list += spec.name;
  }
  return list;
}

}  // namespace ampscope::analyzer
