#include "analyzer/verdicts/gemm_kernel_family.h"

#include <algorithm>
#include <optional>

namespace ampscope::analyzer {

namespace {

// A block tile of 128x64 or more reuses each loaded operand element enough (m*n/(m+n) >= 43 FMAs
// per element and k) for a SIMT kernel to approach the FP32 peak; smaller tiles are what cuBLAS
// picks when the output has few of them to hand out.
constexpr std::int64_t kLargeTileRows = 128;
constexpr std::int64_t kLargeTileColumns = 64;
constexpr std::int64_t kLargeTileArea = kLargeTileRows * kLargeTileColumns;

std::optional<std::int64_t> readNumber(std::string_view text, std::size_t& at) {
  std::int64_t value = 0;
  const std::size_t start = at;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9' && at - start < 6) {
    value = value * 10 + (text[at] - '0');
    ++at;
  }
  if (at == start) return std::nullopt;
  return value;
}

// The block tile "<m>x<n>" right after a token: "sgemm_128x64_nn", "tilesize256x128x8",
// "simt_sgemm_64x64_8x5", "s1688gemm_128x256_32x3". The product m * n, or nullopt.
std::optional<std::int64_t> tileArea(std::string_view name) {
  for (const std::string_view token : {std::string_view("tilesize"), std::string_view("gemm_")}) {
    for (std::size_t found = name.find(token); found != std::string_view::npos; found = name.find(token, found + 1)) {
      std::size_t at = found + token.size();
      const std::optional<std::int64_t> m = readNumber(name, at);
      if (!m || at >= name.size() || name[at] != 'x') continue;
      ++at;
      const std::optional<std::int64_t> n = readNumber(name, at);
      if (n && *m > 0 && *n > 0) return *m * *n;
    }
  }
  return std::nullopt;
}

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace

const char* gemmKernelFamilyName(GemmKernelFamily family) {
  switch (family) {
    case GemmKernelFamily::kLargeTile: return "large_tile";
    case GemmKernelFamily::kSmallTile: return "small_tile";
    case GemmKernelFamily::kSmallN: return "small_n";
    case GemmKernelFamily::kSplitLargeK: return "split_large_k";
    case GemmKernelFamily::kGemv: return "gemv";
    case GemmKernelFamily::kOuterProduct: return "outer_product";
    case GemmKernelFamily::kUnknown: break;
  }
  return "unknown";
}

GemmKernelFamily gemmKernelFamily(std::string_view name) {
  // Not the call's arguments (types and parameter structs); the template arguments stay, since
  // CUTLASS names its kernel there (cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>).
  name = name.substr(0, name.find('('));
  if (contains(name, "gemmSN")) return GemmKernelFamily::kSmallN;
  if (contains(name, "sgemm_largek")) return GemmKernelFamily::kSplitLargeK;
  if (contains(name, "gemmk1")) return GemmKernelFamily::kOuterProduct;
  if (contains(name, "gemv") || contains(name, "dot_kernel")) return GemmKernelFamily::kGemv;
  if (const std::optional<std::int64_t> area = tileArea(name)) {
    return *area >= kLargeTileArea ? GemmKernelFamily::kLargeTile : GemmKernelFamily::kSmallTile;
  }
  return GemmKernelFamily::kUnknown;
}

bool fp32PathFallsShort(GemmKernelFamily family, const GemmDims& dims, int sm_count) {
  if (dims.convolution || dims.m <= 0 || dims.n <= 0) return false;
  const std::int64_t narrowest = std::min(dims.m, dims.n);
  switch (family) {
    case GemmKernelFamily::kSmallTile:
    case GemmKernelFamily::kSmallN:
    case GemmKernelFamily::kSplitLargeK:
      return true;
    case GemmKernelFamily::kGemv:
      return narrowest > 1;
    case GemmKernelFamily::kOuterProduct:
      return false;
    case GemmKernelFamily::kLargeTile:
    case GemmKernelFamily::kUnknown:
      break;
  }
  // A product with fewer rows or columns than the large tile's 64, or fewer of its tiles than
  // SMs, leaves the FP32 kernel small tiles, a split of K or one block per SM.
  if (narrowest <= 1) return false;
  if (narrowest < kLargeTileColumns) return true;
  const auto tiles = [](std::int64_t rows, std::int64_t columns) {
    return ((rows + kLargeTileRows - 1) / kLargeTileRows) * ((columns + kLargeTileColumns - 1) / kLargeTileColumns);
  };
  // Either way round: cuBLAS may lay the tile along M or N.
  const std::int64_t output_tiles = std::min(tiles(dims.m, dims.n), tiles(dims.n, dims.m)) * std::max<std::int64_t>(1, dims.batch);
  return output_tiles < sm_count;
}

}  // namespace ampscope::analyzer
