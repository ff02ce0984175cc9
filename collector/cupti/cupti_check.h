#pragma once
// The one checker for CUPTI calls: a failed call becomes a trace::Error naming the call as
// written and CUPTI's own words for the failure (cuptiGetResultString), plus a hint where the
// result has a known common cause. The enclosing function returns it, as a trace::Status or a
// trace::Result<T>; library code never prints.

#include <cupti.h>

#include "trace/result.h"

namespace ampscope::collector {

trace::Error cuptiCallError(CUptiResult result, const char* call);

}  // namespace ampscope::collector

#define AMPSCOPE_CUPTI_CHECK(call)                                                  \
  do {                                                                              \
    const CUptiResult ampscope_cupti_result = (call);                               \
    if (ampscope_cupti_result != CUPTI_SUCCESS) {                                   \
      return ::ampscope::collector::cuptiCallError(ampscope_cupti_result, #call);   \
    }                                                                               \
  } while (false)
