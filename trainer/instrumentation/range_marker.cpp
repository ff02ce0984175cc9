#include "trainer/instrumentation/range_marker.h"

#include <mutex>
#include <unordered_map>

#if defined(AMPSCOPE_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

namespace ampscope::trainer {

#if defined(AMPSCOPE_HAVE_NVTX)

namespace {

nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA("ampscope");
  return handle;
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
};

RangeMarker::Handle RangeMarker::registerText(const std::string& text) {
  static std::mutex mutex;
  static std::unordered_map<std::string, RegisteredText> registered;  // nodes never move
  const std::lock_guard lock(mutex);
  auto [it, fresh] = registered.try_emplace(text);
  if (fresh) it->second = {text, nvtxDomainRegisterStringA(domain(), text.c_str())};
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
  nvtxDomainRangePushEx(domain(), &attributes);
}

void RangeMarker::push(const std::string& text) {
  nvtxMessageValue_t message{};
  message.ascii = text.c_str();
  nvtxEventAttributes_t attributes = attributesFor(NVTX_MESSAGE_TYPE_ASCII, message);
  nvtxDomainRangePushEx(domain(), &attributes);
}

void RangeMarker::pop() { nvtxDomainRangePop(domain()); }
bool RangeMarker::compiledIn() { return true; }

#else

RangeMarker::Handle RangeMarker::registerText(const std::string& /*text*/) { return nullptr; }
void RangeMarker::push(Handle /*text*/) {}
void RangeMarker::push(const std::string& /*text*/) {}
void RangeMarker::pop() {}
bool RangeMarker::compiledIn() { return false; }

#endif

}  // namespace ampscope::trainer
