#pragma once
// What a GPU's name says, as users type it ("H100-SXM", "rtx4090") or as traces record it
// ("Tesla V100-DGXS-32GB", "NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 2070 SUPER",
// "NVIDIA H100 80GB HBM3 MIG 1g.10gb"): the model, the board, the memory size, the product line,
// and whether every word was understood. The device table matches a row only on a name read
// whole; a name with words it does not know ("SUPER" where no SUPER row exists, "4090 D", a MIG
// slice, "Laptop GPU") still names its family, whose row its peaks are derived from
// (docs/devices.md, "Matching a name" and "Derived peaks").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ampscope::analyzer {

// The board a row is: names say it ("SXM4", "PCIe", "NVL") or imply it ("DGXS", "PG509").
enum class BoardForm : std::uint8_t { kAny, kSxm, kPcie, kNvl };

// Who a GPU is sold to, which decides its Tensor Cores' rate with FP32 accumulate: GeForce cards
// (and AWS's A10G) run FP16/BF16/TF32/FP8 with FP32 accumulate at half their data-centre
// siblings' rate; data-centre, professional (Quadro, RTX A/Ada/PRO) and TITAN cards at the full
// rate. kUnknown: the name does not say (a trace that gives only a compute capability).
enum class ProductLine : std::uint8_t { kUnknown, kDataCentre, kProfessional, kGeForce, kTitan };
const char* productLineName(ProductLine line);  // "data-centre", "professional", "GeForce", ...

struct GpuNameReading {
  // The model as one lower-case word: letters and a number ("h100", "gb200", "rtx4090", "a10g",
  // "rtx4090d", "rtxpro6000", "titanrtx"); never empty in a reading.
  std::string family;
  BoardForm form = BoardForm::kAny;
  int memory_gb = 0;  // a size the name states ("80GB"); 0 when none
  bool ti = false;
  bool super = false;
  ProductLine line = ProductLine::kUnknown;
  bool no_tensor_cores = false;  // a GeForce GTX name: Turing's TU116/TU117 parts have none
  // A MIG slice ("MIG 1g.10gb", "MIG 3g.40gb"): its memory in GB (10, 40), 0 when not a slice.
  int mig_memory_gb = 0;
  // Every word was understood: only such a name matches a row. False for a word the reading
  // does not know ("Laptop", "Max-Q", "-24Q"), a one-letter model suffix ("4090 D"), a MIG slice.
  bool exact = true;
};

// Reads a name; nullopt when it names no model or names two boards ("H100 SXM PCIe").
std::optional<GpuNameReading> readGpuName(std::string_view name);

// The family without a one-letter suffix ("rtx4090d" -> "rtx4090", "a10g" -> "a10"); the family
// itself when it has none.
std::string familyWithoutSuffix(std::string_view family);

}  // namespace ampscope::analyzer
