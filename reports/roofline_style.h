#pragma once
// How the views draw the roofline the analysis chose (analyzer/model/roofline.h): the colour of
// each precision (its dots and its roof) and the words of each roof, one set for report.html and
// the GUI's Roofline tab alike.

#include <string>

#include "analyzer/model/roofline.h"

namespace ampscope::reports {

// Red FP32 on CUDA cores, orange TF32, blue FP16, green BF16, ...; grey for unknown. CSS "#rrggbb".
const char* precisionColor(analyzer::MathPrecision precision);
// "FP32-SIMT", "FP16/BF16 (AMP)", "TF32 (allow_tf32)": its precisions, and the projection that
// would move math there where no placed op runs at it.
std::string roofLabel(const analyzer::RooflineRoof& roof);
// The colour of its first precision.
const char* roofColor(const analyzer::RooflineRoof& roof);
// ", and FP16/BF16 Tensor Cores, where AMP would take the eligible math": what the roofs drawn for a
// projection stand for, after a sentence on the peaks the ops ran at; "" when there is none.
std::string projectedRoofsText(const analyzer::Roofline& roofline);

}  // namespace ampscope::reports
