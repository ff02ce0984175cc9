// Writes the fuzzers' seed corpora: small valid inputs of every surface, made from the fixtures
// in the repository (tests/data/nsys_small.sql, the golden test's Kineto trace, the shipped rule
// file) or written here, so that no binary seed is kept in git. Usage: fuzz_seeds OUT_DIR; it
// writes OUT_DIR/<harness>/... (scripts/fuzz.sh; CTest before the fuzz-regression replays).

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <zlib.h>

#include "analyzer/import/trace_importer.h"
#include "trace/db/profile_writer.h"
#include "trace/db/sqlite_database.h"

namespace {

namespace fs = std::filesystem;
using ampscope::trace::db::SqliteDatabase;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_seeds: %s\n", what.c_str());
  std::exit(1);
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) fail("cannot write " + path.string());
}

// One gzip member per part: a multi-member file is what `cat a.gz b.gz` makes, and gzip reads it.
void writeGzip(const fs::path& path, std::initializer_list<std::string> members) {
  fs::remove(path);
  for (const std::string& member : members) {
    gzFile file = gzopen(path.c_str(), "ab9");
    if (!file) fail("cannot write " + path.string());
    gzwrite(file, member.data(), static_cast<unsigned>(member.size()));
    gzclose(file);
  }
}

// Small pages, no WAL, no free pages: a seed of a few KB mutates faster than one of a hundred,
// and a WAL header would make every read-only open look for side files.
void compact(const fs::path& path) {
  auto db = SqliteDatabase::open(path.string(), SqliteDatabase::Mode::kCreate);
  if (!db) fail(db.error().message);
  if (auto done = db->execute("PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;"); !done) {
    fail(done.error().message);
  }
}

void writeDatabase(const fs::path& path, const std::string& sql) {
  fs::remove(path);
  {
    auto db = SqliteDatabase::open(path.string(), SqliteDatabase::Mode::kCreate);
    if (!db) fail(db.error().message);
    if (auto done = db->execute(sql); !done) fail(done.error().message);
  }
  compact(path);
}

// A modern Kineto trace with one of each event kind the importer reads, and a 2021 one (each with
// memory events in its form).
constexpr const char* kKinetoTrace = R"json({"schemaVersion": 1,
 "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42505273344,
   "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
 "baseTimeNanoseconds": 1700000000000000000,
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 80, "dur": 100},
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 7, "tid": 7, "ts": 99, "dur": 25},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 100.5, "dur": 20,
   "args": {"External id": 3, "Sequence number": 12, "Fwd thread id": 0, "Record function id": 0,
            "Input Dims": [[64, 784], [784, 100]], "Input type": ["c10::Half", "c10::Half"],
            "Concrete Inputs": ["", ""],
            "Module Hierarchy": "TOP(Net)::forward.fc1(Linear)::forward"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 105, "dur": 5,
   "args": {"External id": 3, "correlation": 42, "cbid": 211}},
  {"ph": "X", "cat": "kernel", "name": "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
   "pid": 0, "tid": 7, "ts": 112, "dur": 8,
   "args": {"External id": 3, "device": 0, "stream": 7, "correlation": 42, "registers per thread": 232,
            "shared memory": 81920, "grid": [8, 16, 1], "block": [256, 1, 1]}},
  {"ph": "X", "cat": "kernel", "name": "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_addIN3c104HalfEEENS_6detail5ArrayIPcLi3EEEEEviT0_T1_",
   "pid": 0, "tid": 7, "ts": 121, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 43}},
  {"ph": "s", "id": 42, "pid": 7, "tid": 7, "ts": 105, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 42, "pid": 0, "tid": 7, "ts": 112, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 90, "dur": 3,
   "args": {"device": 0, "stream": 7, "correlation": 40, "bytes": 4096}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 94, "dur": 1,
   "args": {"device": 0, "stream": 7, "correlation": 41, "bytes": 512}},
  {"ph": "X", "cat": "cuda_sync", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7, "ts": 130, "dur": 4,
   "args": {"stream": 7}},
  {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": 140, "dur": 4,
   "args": {"Collective name": "allreduce", "dtype": "Float", "In msg nelems": 1024, "Out msg nelems": 1024,
            "Group size": 2, "Process Group Name": "0", "Process Group Ranks": "[0, 1]"}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 7, "tid": 7, "ts": 101,
   "args": {"Total Reserved": 2097152, "Total Allocated": 12800, "Bytes": 12800, "Addr": 140000000000,
            "Device Id": 0, "Device Type": 1}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 7, "tid": 7, "ts": 125,
   "args": {"Total Reserved": 2097152, "Total Allocated": 0, "Bytes": -12800, "Addr": 140000000000,
            "Device Id": 0, "Device Type": 1}},
  {"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "python"}},
  {"ph": "M", "name": "thread_name", "pid": 7, "tid": 7, "args": {"name": "MainThread"}}
 ]})json";

constexpr const char* kKinetoTrace2021 = R"json({"traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "aten::addmm", "pid": 1, "tid": "1", "ts": 10, "dur": 9,
   "args": {"external id": 5, "Input dims": [[32, 100], [32, 200], [200, 100]]}},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "1", "ts": 11, "dur": 2,
   "args": {"external id": 5, "correlation": 9}},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": "stream 7", "ts": 14, "dur": 3,
   "args": {"device": 0, "stream": 7, "correlation": 9, "external id": 5}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 12800}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 18,
   "args": {"Device Type": 0, "Device Id": -1, "Bytes": -16}}]})json";

// nvprof's tables as PyProf read them, one row each, with a PyProf marker pair.
constexpr const char* kNvprofSql = R"sql(
CREATE TABLE StringTable (_id_ INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringTable VALUES (1, 'Tesla V100-SXM2-16GB'), (2, 'volta_h884gemm_64x64_ldg8_nn'),
  (3, '_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_15gpu_kernel_implIZZZNS0_15add_kernel_cudaERNS_14TensorIteratorEN3c106ScalarEENKUlvE_clEvENKUlvE2_clEvEUlffE_EEvS5_RKT_EUliE_EEviT1_'),
  (4, '{''mod'': ''torch.nn.functional'', ''op'': ''linear'', ''args'': [{''name'': '''', ''type'': ''tensor'', ''shape'': (35, 20, 200), ''dtype'': ''float16''}]}'),
  (5, 'linear, seq = 120');
CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE (id INT, name INT, computeCapabilityMajor INT,
  computeCapabilityMinor INT, numMultiprocessors INT, globalMemorySize INT);
INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES (0, 1, 7, 0, 80, 16945512448);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INT, "end" INT, deviceId INT, streamId INT,
  correlationId INT, name INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT,
  registersPerThread INT, staticSharedMemory INT, dynamicSharedMemory INT);
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES
  (1000, 2000, 0, 7, 11, 2, 8, 4, 1, 128, 1, 1, 126, 16384, 0),
  (2100, 2200, 0, 7, 12, 3, 64, 1, 1, 128, 1, 1, 32, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (cbid INT, start INT, "end" INT, processId INT, threadId INT, correlationId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (211, 900, 950, 4242, -1519988736, 11), (211, 960, 990, 4242, -1519988736, 12);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (cbid INT, start INT, "end" INT, processId INT, threadId INT, correlationId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (307, 970, 980, 4242, -1519988736, 13);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (copyKind INT, srcKind INT, dstKind INT, bytes INT, start INT,
  "end" INT, deviceId INT, streamId INT, correlationId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 1, 3, 4096, 500, 600, 0, 7, 10);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (bytes INT, start INT, "end" INT, deviceId INT, streamId INT,
  correlationId INT, memoryKind INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (512, 650, 660, 0, 7, 14, 3);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (type INT, start INT, "end" INT, correlationId INT, streamId INT);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (3, 2300, 2400, 15, -1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER (flags INT, timestamp INT, id INT, objectKind INT, objectId BLOB, name INT);
INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES
  (2, 850, 1, 2, X'9210000000D066A500000000', 4),
  (2, 880, 2, 2, X'9210000000D066A500000000', 5),
  (4, 2050, 2, 2, X'9210000000D066A500000000', 0),
  (4, 2060, 1, 2, X'9210000000D066A500000000', 0);
)sql";

constexpr const char* kRangeTexts[] = {
    "aten::linear, seq = 3, op_id = 11, sizes = [[64, 784], [100, 784], [100]], input_op_ids = [(9, 0), (10, 0)]",
    "MmBackward0, seq = 5, op_id = 90",
    "autograd::engine::evaluate_function: MmBackward0, seq = 5",
    "{'mod': 'torch.nn.functional', 'op': 'conv2d', 'args': [{'name': '', 'type': 'tensor', "
    "'shape': (8, 3, 224, 224), 'dtype': 'float16'}, {'name': '', 'type': 'tensor', 'shape': (64, 3, 7, 7), "
    "'dtype': 'float16'}, {'name': '', 'type': 'NoneType', 'value': None}, {'name': '', 'type': 'tuple', "
    "'value': (2, 2)}, {'name': '', 'type': 'int', 'value': 1}, {'name': '', 'type': 'float', 'value': 0.5}, "
    "{'name': '', 'type': 'bool', 'value': True}]}",
    "{'traceMarker': ['train.py:314', 'model.py:20'], 'funcStack': '/Net::forward/Linear::_call_impl[4]/Linear::forward/linear'}",
    "{'mod': 'Linear', 'strRepr': 'in_features=200, out_features=100, bias=True'}",
    "fc1 linear forward in=[64,784] params=[[100,784],[100]] out=[64,100] dtype=float16",
    "TOP(ResNet)::forward.SELF(ResNet)::_forward_impl.layer1(Sequential)::forward.0(Bottleneck)::forward",
    "nn.Module: Linear_0",
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) fail("usage: fuzz_seeds OUT_DIR");
  const fs::path out(argv[1]);
  const fs::path source(AMPSCOPE_SOURCE_DIR);
  for (const char* harness : {"kineto", "gzip", "nsys", "nvprof", "profile", "range_text", "tensor_core_rules",
                              "device_rows"}) {
    fs::remove_all(out / harness);
    fs::create_directories(out / harness);
  }

  const fs::path golden_trace = source / "tests/golden/small_training/trace.json";
  const std::string golden = readFile(golden_trace);
  writeFile(out / "kineto/golden_small_training.json", golden);
  writeFile(out / "kineto/every_event_kind.json", kKinetoTrace);
  writeFile(out / "kineto/schema_2021.json", kKinetoTrace2021);

  writeGzip(out / "gzip/every_event_kind.json.gz", {kKinetoTrace});
  writeGzip(out / "gzip/two_members.json.gz", {std::string(kKinetoTrace2021).substr(0, 40),
                                               std::string(kKinetoTrace2021).substr(40)});

  writeDatabase(out / "nsys/nsys_small.sqlite", readFile(source / "tests/data/nsys_small.sql"));
  writeDatabase(out / "nvprof/nvprof_small.sqlite", kNvprofSql);

  // A profile as ampscope writes it, of the golden test's trace.
  auto trace = ampscope::analyzer::import::importTrace(golden_trace.string());
  if (!trace) fail(trace.error().message);
  const fs::path profile = out / "profile/golden_small_training.sqlite";
  fs::remove(profile);
  if (auto written = ampscope::trace::db::writeProfile(profile.string(), *trace); !written) {
    fail(written.error().message);
  }
  compact(profile);
  for (const char* side : {"-wal", "-shm"}) fs::remove(profile.string() + side);

  int text = 0;
  for (const char* range_text : kRangeTexts) {
    writeFile(out / "range_text" / ("text_" + std::to_string(text++) + ".txt"), range_text);
  }

  // The shipped rules, and its first rows alone (a small seed mutates faster).
  const std::string rules = readFile(source / "analyzer/rules/tensor_core_rules.tsv");
  writeFile(out / "tensor_core_rules/tensor_core_rules.tsv", rules);
  std::istringstream lines(rules);
  std::string line;
  std::string head;
  for (int i = 0; i < 24 && std::getline(lines, line); ++i) head += line + "\n";
  writeFile(out / "tensor_core_rules/first_rows.tsv", head);

  // The shipped device table, and its header with the first rows.
  const std::string devices = readFile(source / "analyzer/rules/devices.tsv");
  writeFile(out / "device_rows/devices.tsv", devices);
  std::istringstream device_lines(devices);
  std::string device_head;
  for (int i = 0; i < 30 && std::getline(device_lines, line); ++i) device_head += line + "\n";
  writeFile(out / "device_rows/first_rows.tsv", device_head);

  std::printf("fuzz_seeds: seeds written under %s\n", out.c_str());
  return 0;
}
