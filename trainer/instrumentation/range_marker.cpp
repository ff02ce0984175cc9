#include "trainer/instrumentation/range_marker.h"

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#if defined(AMPSCOPE_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace ampscope::trainer {

#if defined(AMPSCOPE_HAVE_NVTX)

namespace {

nvtxDomainHandle_t domain(RangeDomain which = RangeDomain::kTrainer) {
  static const nvtxDomainHandle_t trainer = nvtxDomainCreateA("ampscope");
  static const nvtxDomainHandle_t host_ops = nvtxDomainCreateA("ampscope.host");
  return which == RangeDomain::kHostOps ? host_ops : trainer;
}

nvtxEventAttributes_t attributesFor(nvtxMessageType_t type, nvtxMessageValue_t message) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = type;
  attributes.message = message;
  return attributes;
}

}  // namespace

// A text and NVTX's handle for it; null when no tool registers strings (none attached, or one
// that does not support registration), and the text is pushed as is.
struct RegisteredText {
  std::string text;
  nvtxStringHandle_t handle = nullptr;
  RangeDomain domain = RangeDomain::kTrainer;
};

RangeMarker::Handle RangeMarker::registerText(const std::string& text, RangeDomain which) {
  static std::mutex mutex;
  static std::map<std::pair<RangeDomain, std::string>, RegisteredText> registered;  // nodes never move
  const std::lock_guard lock(mutex);
  auto [it, fresh] = registered.try_emplace({which, text});
  if (fresh) it->second = {text, nvtxDomainRegisterStringA(domain(which), text.c_str()), which};
  return &it->second;
}

void RangeMarker::push(Handle text) {
  const auto* entry = static_cast<const RegisteredText*>(text);
  nvtxMessageValue_t message{};
  nvtxEventAttributes_t attributes;
  if (entry->handle != nullptr) {
    message.registered = entry->handle;
    attributes = attributesFor(NVTX_MESSAGE_TYPE_REGISTERED, message);
  } else {
    message.ascii = entry->text.c_str();
    attributes = attributesFor(NVTX_MESSAGE_TYPE_ASCII, message);
  }
  nvtxDomainRangePushEx(domain(entry->domain), &attributes);
}

void RangeMarker::push(const std::string& text) {
  nvtxMessageValue_t message{};
  message.ascii = text.c_str();
  nvtxEventAttributes_t attributes = attributesFor(NVTX_MESSAGE_TYPE_ASCII, message);
  nvtxDomainRangePushEx(domain(), &attributes);
}

void RangeMarker::pop(RangeDomain which) { nvtxDomainRangePop(domain(which)); }
bool RangeMarker::compiledIn() { return true; }

#else

RangeMarker::Handle RangeMarker::registerText(const std::string& /*text*/, RangeDomain /*domain*/) { return nullptr; }
void RangeMarker::push(Handle /*text*/) {}
void RangeMarker::push(const std::string& /*text*/) {}
void RangeMarker::pop(RangeDomain /*domain*/) {}
bool RangeMarker::compiledIn() { return false; }

#endif

namespace {

constexpr std::array<const char*, static_cast<std::size_t>(HostOp::kCount)> kOpNames = {
    "gemm", "conv2d forward", "conv2d backward data", "conv2d backward filter", "add bias", "bias gradient",
    "activation forward", "activation backward", "batch norm forward", "batch norm backward",
    "layer norm forward", "layer norm backward", "pool forward", "pool backward", "softmax cross entropy",
    "count correct", "unscale gradients", "clip gradients", "gradient histograms", "sgd step", "adamw step",
    "loss scale update", "copy", "copy all", "fill", "scale", "upload", "download",
};
constexpr DType kDtypes[] = {DType::kFp32, DType::kFp16, DType::kBf16};

using HandleTable = std::array<std::array<RangeMarker::Handle, 3>, static_cast<std::size_t>(HostOp::kCount)>;

const HandleTable& handles() {
  static const HandleTable table = [] {
    HandleTable t{};
    for (std::size_t op = 0; op < kOpNames.size(); ++op) {
      for (DType dtype : kDtypes) {
        t[op][static_cast<std::size_t>(dtype)] = RangeMarker::registerText(
            std::string("cpu ") + kOpNames[op] + " " + dtypeName(dtype), RangeDomain::kHostOps);
      }
    }
    return t;
  }();
  return table;
}

}  // namespace

ScopedHostOp::ScopedHostOp(HostOp op, DType dtype) {
  RangeMarker::push(handles()[static_cast<std::size_t>(op)][static_cast<std::size_t>(dtype)]);
}

ScopedHostOp::~ScopedHostOp() { RangeMarker::pop(RangeDomain::kHostOps); }

}  // namespace ampscope::trainer
