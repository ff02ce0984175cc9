#pragma once
// The result types live in base/result.h (target ampscope_result); trace code and the analyzer
// keep spelling them trace::Result, trace::Error and trace::Status.

#include "base/result.h"

namespace ampscope::trace {
using ampscope::Error;
using ampscope::Result;
using ampscope::Status;
}  // namespace ampscope::trace
