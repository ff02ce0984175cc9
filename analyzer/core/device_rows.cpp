#include "analyzer/core/device_rows.h"

namespace ampscope::analyzer {

// One row per product. Rates are dense (no sparsity) at the boost clock, in TFLOP/s (TOP/s for
// INT8); memory in GB/s. FP16/BF16 (and on GeForce FP8) are the FP32-accumulate figures: the
// mode mixed-precision training runs, and on GeForce half the FP16-accumulate rate. FP64 is the
// FP64 Tensor Core rate where the part has one; on GeForce, T4, A10, L4 and L40S, which list none,
// it is FP32 x 1/32 (Turing) or x 1/64 (8.6, 8.9, 12.0). "derived" means SMs x boost clock x the
// per-SM rate NVIDIA documents for the architecture, where no NVIDIA table gives the figure.
// Every number and its source: docs/devices.md.
const std::vector<DeviceRow>& deviceRows() {
  // Columns: name, architecture, compute capability, SMs, GB/s, FP32, TF32, FP16, BF16, FP8,
  // FP4, INT8, FP64, sources; then family, form, memory GB, Ti (and where set: SUPER, device
  // memory GB).
  static const std::vector<DeviceRow> kRows = {
      // Tesla V100 datasheet; Volta whitepaper Table 1 (GV100 SXM2, 1530 MHz). No TF32/BF16/INT8
      // Tensor Cores: INT8 runs as dp4a on the CUDA cores, which is not a Tensor Core rate (0).
      {{"V100 SXM2", "Volta", 7, 0, 80, 900, 15.7, 0, 125, 0, 0, 0, 0, 7.8,
        "NVIDIA Tesla V100 datasheet; Volta architecture whitepaper, Table 1"},
       "v100", BoardForm::kSxm, 0, false},
      // Tesla V100 datasheet (PCIe, 250 W).
      {{"V100 PCIe", "Volta", 7, 0, 80, 900, 14, 0, 112, 0, 0, 0, 0, 7,
        "NVIDIA Tesla V100 datasheet"},
       "v100", BoardForm::kPcie, 0, false},
      // V100 datasheet, V100S column (2019 update).
      {{"V100S PCIe", "Volta", 7, 0, 80, 1134, 16.4, 0, 130, 0, 0, 0, 0, 8.2,
        "NVIDIA V100 datasheet (V100S PCIe column)"},
       "v100s", BoardForm::kPcie, 0, false},
      // T4 datasheet (FP16 mixed precision 65, INT8 130); FP64 derived: 1/32 of FP32 on Turing.
      {{"T4", "Turing", 7, 5, 40, 320, 8.1, 0, 65, 0, 0, 0, 130, 0.25,
        "NVIDIA T4 datasheet; FP64 derived (1/32 of FP32, Turing whitepaper)"},
       "t4", BoardForm::kAny, 0, false},
      // Turing whitepaper per-SM rates at the reference boost clock (1620 MHz): derived.
      {{"RTX 2070", "Turing", 7, 5, 36, 448, 7.5, 0, 29.9, 0, 0, 0, 119.4, 0.23,
        "derived: Turing whitepaper per-SM rates, 36 SMs, 1620 MHz reference boost"},
       "rtx2070", BoardForm::kAny, 0, false},
      // Same derivation at 1770 MHz: 40 SMs (2560 CUDA cores), 448 GB/s.
      {{"RTX 2070 SUPER", "Turing", 7, 5, 40, 448, 9.06, 0, 36.25, 0, 0, 0, 145, 0.28,
        "derived: Turing whitepaper per-SM rates, 40 SMs, 1770 MHz reference boost; RTX 2070 SUPER product page"},
       "rtx2070", BoardForm::kAny, 0, false, true},
      // Same derivation at 1710 MHz.
      {{"RTX 2080", "Turing", 7, 5, 46, 448, 10.1, 0, 40.3, 0, 0, 0, 161.1, 0.31,
        "derived: Turing whitepaper per-SM rates, 46 SMs, 1710 MHz reference boost"},
       "rtx2080", BoardForm::kAny, 0, false},
      // Turing whitepaper Table 1, reference (not Founders Edition) column.
      {{"RTX 2080 Ti", "Turing", 7, 5, 68, 616, 13.4, 0, 53.8, 0, 0, 0, 215.2, 0.42,
        "NVIDIA Turing architecture whitepaper / Turing In-Depth, Table 1 (reference card)"},
       "rtx2080", BoardForm::kAny, 0, true},
      // TITAN RTX runs FP32 accumulate at the full rate; Turing whitepaper Table 1, Quadro RTX
      // 6000 column (the same 72-SM TU102 at 1770 MHz, 672 GB/s).
      {{"TITAN RTX", "Turing", 7, 5, 72, 672, 16.3, 0, 130.5, 0, 0, 0, 261, 0.51,
        "NVIDIA TITAN RTX product page; Turing whitepaper Table 1 (Quadro RTX 6000 column)"},
       "titanrtx", BoardForm::kAny, 0, false},
      // GA10x per-SM rates (GA102 whitepaper) at 1777 MHz: derived; the RTX 3060 12GB.
      {{"RTX 3060", "Ampere", 8, 6, 28, 360, 12.7, 12.7, 25.5, 25.5, 0, 0, 101.9, 0.2,
        "derived: GA102 whitepaper per-SM rates, 28 SMs, 1777 MHz boost"},
       "rtx3060", BoardForm::kAny, 0, false},
      // GA102 whitepaper, Appendix A (RTX 3070).
      {{"RTX 3070", "Ampere", 8, 6, 46, 448, 20.3, 20.3, 40.6, 40.6, 0, 0, 162.6, 0.32,
        "NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A"},
       "rtx3070", BoardForm::kAny, 0, false},
      // GA102 whitepaper, Table 1 (RTX 3080 10GB).
      {{"RTX 3080", "Ampere", 8, 6, 68, 760, 29.8, 29.8, 59.5, 59.5, 0, 0, 238, 0.47,
        "NVIDIA Ampere GA102 GPU architecture whitepaper, Table 1"},
       "rtx3080", BoardForm::kAny, 0, false},
      // GA102 whitepaper, Appendix A (RTX 3090).
      {{"RTX 3090", "Ampere", 8, 6, 82, 936, 35.6, 35.6, 71, 71, 0, 0, 284, 0.56,
        "NVIDIA Ampere GA102 GPU architecture whitepaper, Appendix A"},
       "rtx3090", BoardForm::kAny, 0, false},
      // A10 datasheet; FP64 derived (1/64 of FP32 on GA10x).
      {{"A10", "Ampere", 8, 6, 72, 600, 31.2, 62.5, 125, 125, 0, 0, 250, 0.49,
        "NVIDIA A10 datasheet; FP64 derived (1/64 of FP32)"},
       "a10", BoardForm::kAny, 0, false},
      // AWS's GA102 part (80 SMs, 1710 MHz, 600 GB/s): no NVIDIA datasheet. Its Tensor Cores run
      // FP32 accumulate at the GeForce rate (measured 69.5 TFLOPS FP16, 34.7 TF32): derived.
      {{"A10G", "Ampere", 8, 6, 80, 600, 35, 35, 70, 70, 0, 0, 280, 0.55,
        "derived: GA102 whitepaper per-SM rates, 80 SMs, 1710 MHz, GeForce FP32-accumulate rate; AWS G5"},
       "a10g", BoardForm::kAny, 0, false},
      // A30 datasheet (FP64 Tensor Core 10.3).
      {{"A30", "Ampere", 8, 0, 56, 933, 10.3, 82, 165, 165, 0, 0, 330, 10.3,
        "NVIDIA A30 datasheet"},
       "a30", BoardForm::kAny, 0, false},
      // A100 datasheet, 80GB SXM column; A100 whitepaper Table 1 (108 SMs, 1410 MHz).
      {{"A100 SXM", "Ampere", 8, 0, 108, 2039, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (80GB SXM); A100 architecture whitepaper, Table 1"},
       "a100", BoardForm::kSxm, 80, false},
      // A100 datasheet, 40GB SXM column.
      {{"A100 SXM 40GB", "Ampere", 8, 0, 108, 1555, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (40GB SXM)"},
       "a100", BoardForm::kSxm, 40, false},
      // A100 datasheet, 80GB PCIe column (same peak rates, 1935 GB/s).
      {{"A100 PCIe", "Ampere", 8, 0, 108, 1935, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (80GB PCIe)"},
       "a100", BoardForm::kPcie, 80, false},
      // A100 datasheet, 40GB PCIe column.
      {{"A100 PCIe 40GB", "Ampere", 8, 0, 108, 1555, 19.5, 156, 312, 312, 0, 0, 624, 19.5,
        "NVIDIA A100 datasheet (40GB PCIe)"},
       "a100", BoardForm::kPcie, 40, false},
      // Ada per-SM rates (Ada whitepaper) at 2475 MHz: derived; NVIDIA's "466 AI TOPS" is the
      // sparse INT8 figure, twice the 233.2 here.
      {{"RTX 4070", "Ada", 8, 9, 46, 504, 29.1, 29.1, 58.3, 58.3, 116.6, 0, 233.2, 0.45,
        "derived: Ada whitepaper per-SM rates, 46 SMs, 2475 MHz boost; RTX 4070 product page"},
       "rtx4070", BoardForm::kAny, 0, false},
      // Ada whitepaper, Appendix A (RTX 4080 16GB).
      {{"RTX 4080", "Ada", 8, 9, 76, 716.8, 48.7, 48.7, 97.5, 97.5, 194.9, 0, 389.9, 0.76,
        "NVIDIA Ada GPU architecture whitepaper, Appendix A"},
       "rtx4080", BoardForm::kAny, 0, false},
      // Ada whitepaper v2.1, Appendix A (FP8 with FP32 accumulate as corrected in v2.02).
      {{"RTX 4090", "Ada", 8, 9, 128, 1008, 82.6, 82.6, 165.2, 165.2, 330.3, 0, 660.6, 1.29,
        "NVIDIA Ada GPU architecture whitepaper, Appendix A"},
       "rtx4090", BoardForm::kAny, 0, false},
      // L4 datasheet (sparse figures halved); FP64 derived (1/64 of FP32).
      {{"L4", "Ada", 8, 9, 58, 300, 30.3, 60, 121, 121, 242.5, 0, 242.5, 0.47,
        "NVIDIA L4 datasheet; Ada whitepaper v2.01; FP64 derived (1/64 of FP32)"},
       "l4", BoardForm::kAny, 0, false},
      // L40S datasheet; FP64 derived (1/64 of FP32).
      {{"L40S", "Ada", 8, 9, 142, 864, 91.6, 183, 362.05, 362.05, 733, 0, 733, 1.43,
        "NVIDIA L40S datasheet; FP64 derived (1/64 of FP32)"},
       "l40s", BoardForm::kAny, 0, false},
      // H100 datasheet (SXM); Hopper whitepaper for the unrounded dense figures.
      {{"H100 SXM", "Hopper", 9, 0, 132, 3350, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 67,
        "NVIDIA H100 datasheet (SXM); H100 architecture whitepaper"},
       "h100", BoardForm::kSxm, 0, false},
      // H100 datasheet (PCIe, sparse figures halved).
      {{"H100 PCIe", "Hopper", 9, 0, 114, 2000, 51, 378, 756.5, 756.5, 1513, 0, 1513, 51,
        "NVIDIA H100 datasheet (PCIe)"},
       "h100", BoardForm::kPcie, 0, false},
      // H100 datasheet (NVL, per GPU, sparse figures halved).
      {{"H100 NVL", "Hopper", 9, 0, 132, 3900, 60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5, 60,
        "NVIDIA H100 datasheet (H100 NVL, per GPU)"},
       "h100", BoardForm::kNvl, 0, false},
      // H800 datasheet: H100 SXM's math and memory; FP64 cut to 1 TFLOPS by the export rules.
      {{"H800 SXM", "Hopper", 9, 0, 132, 3350, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 1,
        "NVIDIA H800 datasheet (SXM)"},
       "h800", BoardForm::kSxm, 0, false},
      // H200 datasheet (SXM): H100 SXM's math with 4.8 TB/s HBM3e.
      {{"H200", "Hopper", 9, 0, 132, 4800, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 67,
        "NVIDIA H200 datasheet (SXM)"},
       "h200", BoardForm::kSxm, 0, false},
      // GH200 Grace Hopper datasheet: the Hopper GPU at H100 SXM's rates with 96 GB HBM3 at
      // 4 TB/s; the HBM3e board (144 GB, 4.9 TB/s) is told by the device's memory. Names state
      // the superchip's LPDDR5X ("GH200 480GB"), not the GPU's memory: any size matches.
      {{"GH200", "Hopper", 9, 0, 132, 4000, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 67,
        "NVIDIA GH200 Grace Hopper Superchip datasheet (96GB HBM3)"},
       "gh200", BoardForm::kAny, 0, false, false, 96},
      {{"GH200 144GB", "Hopper", 9, 0, 132, 4900, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9, 67,
        "NVIDIA GH200 Grace Hopper Superchip datasheet (144GB HBM3e)"},
       "gh200", BoardForm::kAny, 0, false, false, 144},
      // HGX H20 launch specifications: Hopper with its Tensor Core rates capped by the export
      // rules (148 dense FP16, not the 989 its SMs would give), 96 GB HBM3 at 4 TB/s; 78 SMs as
      // the device reports them. A derivation from SM count would overstate it sixfold: hence a row.
      {{"H20", "Hopper", 9, 0, 78, 4000, 44, 74, 148, 148, 296, 0, 296, 1,
        "NVIDIA HGX H20 specifications (launch listing)"},
       "h20", BoardForm::kAny, 0, false},
      // Blackwell architecture technical brief and DGX B200 datasheet (HGX B200 at 1000 W,
      // sparse figures halved); 148 SMs as the device reports them.
      {{"B200", "Blackwell", 10, 0, 148, 8000, 80, 1100, 2250, 2250, 4500, 9000, 4500, 40,
        "NVIDIA Blackwell architecture technical brief (HGX B200); DGX B200 datasheet"},
       "b200", BoardForm::kSxm, 0, false},
      // Blackwell technical brief, GB200 per GPU (1200 W), sparse figures halved; 152 SMs as
      // the device reports them (no NVIDIA table gives the SM count).
      {{"GB200", "Blackwell", 10, 0, 152, 8000, 90, 1250, 2500, 2500, 5000, 10000, 5000, 45,
        "NVIDIA Blackwell architecture technical brief (GB200, per GPU); GB200 NVL72 page"},
       "gb200", BoardForm::kAny, 0, false},
      // RTX Blackwell per-SM rates (RTX Blackwell whitepaper) at 2617 MHz: derived; FP4 is
      // NVIDIA's 1801 sparse AI TOPS halved.
      {{"RTX 5080", "Blackwell", 12, 0, 84, 960, 56.3, 56.3, 112.6, 112.6, 225.1, 900.5, 450.2,
        0.88, "derived: RTX Blackwell whitepaper per-SM rates, 84 SMs, 2617 MHz boost; RTX 5080 "
        "product page"},
       "rtx5080", BoardForm::kAny, 0, false},
      // RTX Blackwell whitepaper, Appendix A (FP4 with FP32 accumulate runs at the full rate).
      {{"RTX 5090", "Blackwell", 12, 0, 170, 1792, 104.8, 104.8, 209.5, 209.5, 419, 1676, 838,
        1.64, "NVIDIA RTX Blackwell GPU architecture whitepaper, Appendix A"},
       "rtx5090", BoardForm::kAny, 0, false},
      // RTX PRO 6000 Blackwell datasheet (Workstation and Server Editions, 600 W): 188 SMs, 125
      // TFLOPS FP32, 4000 sparse FP4 AI TOPS, 96 GB GDDR7 at 1792 GB/s. A professional part: FP32
      // accumulate at the full rate; the other Tensor Core figures are derived from the RTX
      // Blackwell per-SM rates at the 2.6 GHz its FP32 figure implies, which its FP4 figure confirms.
      {{"RTX PRO 6000 Blackwell", "Blackwell", 12, 0, 188, 1792, 125, 250, 500, 500, 1000, 2000, 1000, 1.95,
        "NVIDIA RTX PRO 6000 Blackwell datasheet; derived: RTX Blackwell whitepaper per-SM rates, 2.6 GHz"},
       "rtxpro6000", BoardForm::kAny, 0, false},
  };
  return kRows;
}

}  // namespace ampscope::analyzer
