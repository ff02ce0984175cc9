// A program that dies midway: it closes 50 ranges, opens one more, then dies the way its first
// argument says: "segv" (a fatal signal), "abort", or "kill" (SIGKILL after 500 ms, which no
// handler can catch). It knows nothing of ampscope.

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include <nvtx3/nvToolsExt.h>

int main(int argc, char** argv) {
  const std::string how = argc > 1 ? argv[1] : "segv";
  for (int i = 0; i < 50; ++i) {
    nvtxRangePushA(("closed " + std::to_string(i)).c_str());
    nvtxRangePop();
  }
  nvtxRangePushA("open when the program died");
  if (how == "abort") std::abort();
  if (how == "kill") {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::raise(SIGKILL);
  }
  std::raise(SIGSEGV);
  return 0;
}
