#pragma once
// A source of activity records other than NVTX (CUPTI's GPU activity), drained by the
// recorder's writer thread so that decoding and database writes stay off the program's threads.

#include "collector/activity_sink.h"

namespace ampscope::collector {

class ActivitySource {
 public:
  virtual ~ActivitySource() = default;
  // Decodes what the source has completed into sink. Writer thread only.
  virtual void drain(ActivitySink& sink) = 0;
  // Asks the source to complete what it holds (CUPTI: flush its buffers), so the next drain
  // sees everything recorded so far.
  virtual void flush() = 0;
  // Stops recording; a last flush and drain follow.
  virtual void stop() = 0;
};

}  // namespace ampscope::collector
