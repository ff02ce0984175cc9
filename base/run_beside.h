#pragma once
// Runs a piece of work beside the calling thread where the caller allows it and the system gives a
// thread, else on the calling thread once its end is waited for: the stages of an analysis that may
// run side by side (AnalysisOptions::threads), in one place.

#include <future>
#include <system_error>

namespace ampscope {

// Either way the caller must wait for the work (get()) before reading what it wrote; get() also
// rethrows what the work threw.
template <typename Work>
std::future<void> runBeside(bool concurrent, const Work& work) {
  if (concurrent) {
    try {
      return std::async(std::launch::async, work);
    } catch (const std::system_error&) {
      // No thread to be had: run when waited for.
    }
  }
  return std::async(std::launch::deferred, work);
}

}  // namespace ampscope
