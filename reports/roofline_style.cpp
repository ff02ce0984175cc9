#include "reports/roofline_style.h"

#include <fmt/format.h>

namespace ampscope::reports {

namespace {

std::string precisionsText(const analyzer::RooflineRoof& roof) {
  std::string text;
  for (const analyzer::MathPrecision precision : roof.precisions) {
    if (!text.empty()) text += "/";
    text += analyzer::precisionName(precision);
  }
  return text;
}

}  // namespace

const char* precisionColor(analyzer::MathPrecision precision) {
  switch (precision) {
    case analyzer::MathPrecision::kFp32Simt:
    case analyzer::MathPrecision::kFp32: return "#e15759";
    case analyzer::MathPrecision::kTf32: return "#f28e2b";
    case analyzer::MathPrecision::kFp16: return "#4e79a7";
    case analyzer::MathPrecision::kBf16: return "#59a14f";
    case analyzer::MathPrecision::kFp8:
    case analyzer::MathPrecision::kFp4: return "#b07aa1";
    case analyzer::MathPrecision::kInt8: return "#9c755f";
    case analyzer::MathPrecision::kFp64: return "#edc948";
    case analyzer::MathPrecision::kUnknown: break;
  }
  return "#8a99a8";
}

std::string roofLabel(const analyzer::RooflineRoof& roof) {
  switch (roof.source) {
    case analyzer::RoofSource::kAmp: return precisionsText(roof) + " (AMP)";
    case analyzer::RoofSource::kTf32: return precisionsText(roof) + " (allow_tf32)";
    case analyzer::RoofSource::kRan: break;
  }
  return precisionsText(roof);
}

const char* roofColor(const analyzer::RooflineRoof& roof) {
  return precisionColor(roof.precisions.empty() ? analyzer::MathPrecision::kUnknown : roof.precisions.front());
}

std::string projectedRoofsText(const analyzer::Roofline& roofline) {
  std::string text;
  for (const analyzer::RooflineRoof& roof : roofline.roofs) {
    if (roof.source == analyzer::RoofSource::kAmp) {
      text += fmt::format(", and {} Tensor Cores, where AMP would take the eligible math", precisionsText(roof));
    } else if (roof.source == analyzer::RoofSource::kTf32) {
      text += fmt::format(", and {} Tensor Cores, where allow_tf32 would take the FP32 matrix math", precisionsText(roof));
    }
  }
  return text;
}

}  // namespace ampscope::reports
