#include "collector/nvtx/nvtx_tool.h"

#include <atomic>
#include <cstring>
#include <cwchar>
#include <string>

#include <nvtx3/nvToolsExt.h>

#include "collector/collector_clock.h"
#include "collector/nvtx/nvtx_registry.h"

namespace ampscope::collector {

namespace {

std::atomic<bool> g_capture{false};
std::atomic<bool> g_attached{false};
std::atomic<std::uint64_t> g_next_range_id{1};
thread_local int t_depth = 0;  // push nesting level, as nvtxRangePush/Pop report it
// The registry keeps each thread's log alive until the thread ends; this plain pointer spares
// the hot path the registry's lookup and a thread_local with a destructor.
thread_local ThreadEventLog* t_log = nullptr;

// Domain handles are registry indices cast to pointers (0 is NVTX's default domain).
std::uint32_t domainIndex(nvtxDomainHandle_t domain) {
  return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(domain));
}
nvtxDomainHandle_t domainHandle(std::uint32_t index) {
  return reinterpret_cast<nvtxDomainHandle_t>(static_cast<std::uintptr_t>(index));
}

std::string utf8(const wchar_t* text) {
  std::string out;
  std::mbstate_t state{};
  char bytes[MB_LEN_MAX];
  for (; text != nullptr && *text != L'\0'; ++text) {
    const std::size_t n = std::wcrtomb(bytes, *text, &state);
    if (n == static_cast<std::size_t>(-1)) {
      out += '?';  // not representable in the C locale: keep the place, not the character
      state = {};
    } else {
      out.append(bytes, n);
    }
  }
  return out;
}

void append(NvtxRecord& record, std::string_view text) {
  record.clock_ticks = collectorTicks();
  if (t_log == nullptr) t_log = &NvtxRegistry::instance().threadLog();
  t_log->append(record, text);
}

// Fills record from NVTX's event attributes and appends it with the message.
void appendWithAttributes(NvtxRecord& record, std::uint32_t domain, const nvtxEventAttributes_t* attributes) {
  record.domain = domain;
  if (attributes == nullptr) {
    append(record, {});
    return;
  }
  // Fields past `size` were not given by the program's NVTX version.
  const auto has = [&](std::size_t end) { return attributes->size >= end; };
  if (has(offsetof(nvtxEventAttributes_t, category) + sizeof(attributes->category))) {
    record.category = attributes->category;
  }
  if (has(offsetof(nvtxEventAttributes_t, payload) + sizeof(attributes->payload)) &&
      attributes->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 && attributes->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT) {
    record.payload_type = static_cast<NvtxPayloadType>(attributes->payloadType);
    std::memcpy(&record.payload_bits, &attributes->payload, sizeof(record.payload_bits));
  }
  if (!has(offsetof(nvtxEventAttributes_t, message) + sizeof(attributes->message))) {
    append(record, {});
    return;
  }
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      append(record, attributes->message.ascii != nullptr ? std::string_view(attributes->message.ascii) : std::string_view());
      return;
    case NVTX_MESSAGE_TYPE_UNICODE:
      append(record, utf8(attributes->message.unicode));
      return;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      record.registered = reinterpret_cast<const RegisteredString*>(attributes->message.registered);
      append(record, {});
      return;
    default:
      append(record, {});
      return;
  }
}

int push(std::uint32_t domain, const nvtxEventAttributes_t* attributes, std::string_view text) {
  if (g_capture.load(std::memory_order_relaxed)) {
    NvtxRecord record;
    record.kind = NvtxRecordKind::kPush;
    if (attributes != nullptr) {
      appendWithAttributes(record, domain, attributes);
    } else {
      record.domain = domain;
      append(record, text);
    }
  }
  return t_depth++;
}

int pop(std::uint32_t domain) {
  if (g_capture.load(std::memory_order_relaxed)) {
    NvtxRecord record;
    record.kind = NvtxRecordKind::kPop;
    record.domain = domain;
    append(record, {});
  }
  return t_depth > 0 ? --t_depth : -1;
}

nvtxRangeId_t start(std::uint32_t domain, const nvtxEventAttributes_t* attributes, std::string_view text) {
  const nvtxRangeId_t id = g_next_range_id.fetch_add(1, std::memory_order_relaxed);
  if (g_capture.load(std::memory_order_relaxed)) {
    NvtxRecord record;
    record.kind = NvtxRecordKind::kStart;
    record.range_id = id;
    if (attributes != nullptr) {
      appendWithAttributes(record, domain, attributes);
    } else {
      record.domain = domain;
      append(record, text);
    }
  }
  return id;
}

void end(std::uint32_t domain, nvtxRangeId_t id) {
  if (!g_capture.load(std::memory_order_relaxed)) return;
  NvtxRecord record;
  record.kind = NvtxRecordKind::kEnd;
  record.domain = domain;
  record.range_id = id;
  append(record, {});
}

void mark(std::uint32_t domain, const nvtxEventAttributes_t* attributes, std::string_view text) {
  if (!g_capture.load(std::memory_order_relaxed)) return;
  NvtxRecord record;
  record.kind = NvtxRecordKind::kMark;
  if (attributes != nullptr) {
    appendWithAttributes(record, domain, attributes);
  } else {
    record.domain = domain;
    append(record, text);
  }
}

std::string_view view(const char* text) { return text != nullptr ? std::string_view(text) : std::string_view(); }

// --- NVTX core module (default domain) ---
void NVTX_API markEx(const nvtxEventAttributes_t* a) { mark(0, a, {}); }
void NVTX_API markA(const char* m) { mark(0, nullptr, view(m)); }
void NVTX_API markW(const wchar_t* m) { mark(0, nullptr, utf8(m)); }
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* a) { return start(0, a, {}); }
nvtxRangeId_t NVTX_API rangeStartA(const char* m) { return start(0, nullptr, view(m)); }
nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* m) { return start(0, nullptr, utf8(m)); }
void NVTX_API rangeEnd(nvtxRangeId_t id) { end(0, id); }
int NVTX_API rangePushEx(const nvtxEventAttributes_t* a) { return push(0, a, {}); }
int NVTX_API rangePushA(const char* m) { return push(0, nullptr, view(m)); }
int NVTX_API rangePushW(const wchar_t* m) { return push(0, nullptr, utf8(m)); }
int NVTX_API rangePop() { return pop(0); }
void NVTX_API nameCategoryA(uint32_t category, const char* name) { NvtxRegistry::instance().nameCategory(0, category, view(name)); }
void NVTX_API nameCategoryW(uint32_t category, const wchar_t* name) { NvtxRegistry::instance().nameCategory(0, category, utf8(name)); }
void NVTX_API nameOsThreadA(uint32_t tid, const char* name) { NvtxRegistry::instance().nameThread(tid, view(name)); }
void NVTX_API nameOsThreadW(uint32_t tid, const wchar_t* name) { NvtxRegistry::instance().nameThread(tid, utf8(name)); }

// --- NVTX core2 module (domains) ---
void NVTX_API domainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { mark(domainIndex(d), a, {}); }
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return start(domainIndex(d), a, {}); }
void NVTX_API domainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) { end(domainIndex(d), id); }
int NVTX_API domainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return push(domainIndex(d), a, {}); }
int NVTX_API domainRangePop(nvtxDomainHandle_t d) { return pop(domainIndex(d)); }
nvtxResourceHandle_t NVTX_API domainResourceCreate(nvtxDomainHandle_t, nvtxResourceAttributes_t*) { return nullptr; }
void NVTX_API domainResourceDestroy(nvtxResourceHandle_t) {}
void NVTX_API domainNameCategoryA(nvtxDomainHandle_t d, uint32_t category, const char* name) {
  NvtxRegistry::instance().nameCategory(domainIndex(d), category, view(name));
}
void NVTX_API domainNameCategoryW(nvtxDomainHandle_t d, uint32_t category, const wchar_t* name) {
  NvtxRegistry::instance().nameCategory(domainIndex(d), category, utf8(name));
}
nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t d, const char* text) {
  return reinterpret_cast<nvtxStringHandle_t>(
      const_cast<RegisteredString*>(NvtxRegistry::instance().registerString(domainIndex(d), view(text))));
}
nvtxStringHandle_t NVTX_API domainRegisterStringW(nvtxDomainHandle_t d, const wchar_t* text) {
  return reinterpret_cast<nvtxStringHandle_t>(
      const_cast<RegisteredString*>(NvtxRegistry::instance().registerString(domainIndex(d), utf8(text))));
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name) { return domainHandle(NvtxRegistry::instance().domain(view(name))); }
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name) { return domainHandle(NvtxRegistry::instance().domain(utf8(name))); }
void NVTX_API domainDestroy(nvtxDomainHandle_t) {}  // records keep naming it; nothing to free
void NVTX_API initialize(const void*) {}

template <typename Function>
NvtxFunctionPointer pointer(Function function) {
  return reinterpret_cast<NvtxFunctionPointer>(function);
}

bool fill(const NvtxExportTableCallbacks* callbacks, NvtxCallbackModule module,
          std::initializer_list<std::pair<unsigned, NvtxFunctionPointer>> functions) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks->GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return false;
  for (const auto& [id, function] : functions) {
    if (id < size && table[id] != nullptr) *table[id] = function;
  }
  return true;
}

}  // namespace

int attachNvtxTool(const void* (*get_export_table)(std::uint32_t export_table_id)) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  const bool core = fill(callbacks, NVTX_CB_MODULE_CORE,
                         {{NVTX_CBID_CORE_MarkEx, pointer(&markEx)},
                          {NVTX_CBID_CORE_MarkA, pointer(&markA)},
                          {NVTX_CBID_CORE_MarkW, pointer(&markW)},
                          {NVTX_CBID_CORE_RangeStartEx, pointer(&rangeStartEx)},
                          {NVTX_CBID_CORE_RangeStartA, pointer(&rangeStartA)},
                          {NVTX_CBID_CORE_RangeStartW, pointer(&rangeStartW)},
                          {NVTX_CBID_CORE_RangeEnd, pointer(&rangeEnd)},
                          {NVTX_CBID_CORE_RangePushEx, pointer(&rangePushEx)},
                          {NVTX_CBID_CORE_RangePushA, pointer(&rangePushA)},
                          {NVTX_CBID_CORE_RangePushW, pointer(&rangePushW)},
                          {NVTX_CBID_CORE_RangePop, pointer(&rangePop)},
                          {NVTX_CBID_CORE_NameCategoryA, pointer(&nameCategoryA)},
                          {NVTX_CBID_CORE_NameCategoryW, pointer(&nameCategoryW)},
                          {NVTX_CBID_CORE_NameOsThreadA, pointer(&nameOsThreadA)},
                          {NVTX_CBID_CORE_NameOsThreadW, pointer(&nameOsThreadW)}});
  const bool core2 = fill(callbacks, NVTX_CB_MODULE_CORE2,
                          {{NVTX_CBID_CORE2_DomainMarkEx, pointer(&domainMarkEx)},
                           {NVTX_CBID_CORE2_DomainRangeStartEx, pointer(&domainRangeStartEx)},
                           {NVTX_CBID_CORE2_DomainRangeEnd, pointer(&domainRangeEnd)},
                           {NVTX_CBID_CORE2_DomainRangePushEx, pointer(&domainRangePushEx)},
                           {NVTX_CBID_CORE2_DomainRangePop, pointer(&domainRangePop)},
                           {NVTX_CBID_CORE2_DomainResourceCreate, pointer(&domainResourceCreate)},
                           {NVTX_CBID_CORE2_DomainResourceDestroy, pointer(&domainResourceDestroy)},
                           {NVTX_CBID_CORE2_DomainNameCategoryA, pointer(&domainNameCategoryA)},
                           {NVTX_CBID_CORE2_DomainNameCategoryW, pointer(&domainNameCategoryW)},
                           {NVTX_CBID_CORE2_DomainRegisterStringA, pointer(&domainRegisterStringA)},
                           {NVTX_CBID_CORE2_DomainRegisterStringW, pointer(&domainRegisterStringW)},
                           {NVTX_CBID_CORE2_DomainCreateA, pointer(&domainCreateA)},
                           {NVTX_CBID_CORE2_DomainCreateW, pointer(&domainCreateW)},
                           {NVTX_CBID_CORE2_DomainDestroy, pointer(&domainDestroy)},
                           {NVTX_CBID_CORE2_Initialize, pointer(&initialize)}});
  if (!core || !core2) return 0;
  g_attached.store(true);
  return 1;
}

void setNvtxCapture(bool on) { g_capture.store(on, std::memory_order_release); }
bool nvtxCaptureOn() { return g_capture.load(std::memory_order_acquire); }
bool nvtxToolAttached() { return g_attached.load(); }

}  // namespace ampscope::collector
