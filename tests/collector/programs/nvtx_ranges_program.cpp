// A stand-in for "any program that uses NVTX": threads with nested ranges, a domain with a
// registered string, marks and a start/end range. It knows nothing of ampscope. Exits with the
// status given as its first argument, so `ampscope record` can be seen to pass it through.

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <nvtx3/nvToolsExt.h>

int main(int argc, char** argv) {
  const int exit_status = argc > 1 ? std::atoi(argv[1]) : 0;
  nvtxRangePushA("main");
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t) {
    workers.emplace_back([t] {
      for (int i = 0; i < 100; ++i) {
        nvtxRangePushA(("worker " + std::to_string(t) + " item " + std::to_string(i)).c_str());
        nvtxRangePushA("inner");
        nvtxRangePop();
        nvtxRangePop();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  nvtxDomainHandle_t domain = nvtxDomainCreateA("example.domain");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = nvtxDomainRegisterStringA(domain, "registered range");
  nvtxDomainRangePushEx(domain, &attributes);
  nvtxDomainRangePop(domain);
  nvtxMarkA("done");
  const nvtxRangeId_t id = nvtxRangeStartA("start-end range");
  nvtxRangeEnd(id);
  nvtxRangePop();
  return exit_status;
}
