#pragma once
// The storage types a tensor can have.

namespace ampscope::trainer {

enum class DType { kFp32, kFp16, kBf16 };
const char* dtypeName(DType dtype);  // "float32", "float16", "bfloat16"

}  // namespace ampscope::trainer
