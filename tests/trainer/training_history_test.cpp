// The numbers a training run records, step by step, held against a checked-in history: the loss,
// the batch accuracy, the loss scale, which steps were skipped and the gradient norm, then the
// test accuracy and the gradient shares, for every precision mode that keeps a different set of
// tensors (FP32, autocast FP16 and BF16, FP16 weights with FP32 masters), with both optimizers,
// clipping, loss-scale growth and backoff. The engine may change how a step reaches the device
// (where the loss scale lives, how many launches an update takes, when the host reads); it may
// not change these, whenever the host reads them (log_every).
//
// Scales and skips are compared exactly. Losses, norms and accuracies are compared to a relative
// 1e-5: OpenBLAS picks its SGEMM kernels by CPU, and another CPU may round a sum differently.
// To accept a deliberate change: AMPSCOPE_UPDATE_GOLDEN=1 build/tests/trainer/trainer_tests
//   --gtest_filter='TrainingHistory*' and read the diff of tests/trainer/golden/.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../test_support.h"
#include "trainer/engine/training_run.h"

namespace ampscope::trainer {
namespace {

const std::filesystem::path kHistoryDir = std::filesystem::path(AMPSCOPE_TRAINER_TEST_DIR) / "golden";

struct HistoryCase {
  const char* name;
  TrainConfig config;
};

TrainConfig baseConfig(PrecisionMode precision, OptimizerKind optimizer) {
  TrainConfig c;
  c.model.hidden = {48, 24};
  c.precision = precision;
  c.optimizer.kind = optimizer;
  c.optimizer.lr = optimizer == OptimizerKind::kSgd ? 0.05f : 0.003f;
  c.optimizer.weight_decay = 0.01f;
  c.data.batch_size = 32;
  c.data.augment = false;
  c.epochs = 1;
  c.seed = 11;
  // Histograms every step, as the engine took them before they moved off the hot path, so that
  // the gradient shares are held too.
  c.numerics_every = 1;
  return c;
}

std::vector<HistoryCase> historyCases() {
  std::vector<HistoryCase> cases;
  {
    TrainConfig c = baseConfig(PrecisionMode::kFp32, OptimizerKind::kSgd);
    c.optimizer.clip_grad_norm = 0.5f;  // low enough to clip most steps
    c.log_every = 1;
    cases.push_back({"fp32_sgd_clip", c});
  }
  {
    // 2^24 overflows FP16 at first: skipped steps and backoff, then growth every 6 clean steps.
    TrainConfig c = baseConfig(PrecisionMode::kAmpFp16, OptimizerKind::kSgd);
    c.loss_scaling.initial_scale = 16777216.0;
    c.loss_scaling.growth_interval = 6;
    c.log_every = 7;  // log reads that wrap around the slots and do not divide the run
    cases.push_back({"amp_fp16_sgd_dynamic", c});
  }
  {
    TrainConfig c = baseConfig(PrecisionMode::kAmpBf16, OptimizerKind::kAdamW);
    c.optimizer.clip_grad_norm = 1.0f;
    cases.push_back({"amp_bf16_adamw_clip", c});
  }
  {
    TrainConfig c = baseConfig(PrecisionMode::kFp16Master, OptimizerKind::kAdamW);
    c.loss_scaling.initial_scale = 4194304.0;  // 2^22
    c.loss_scaling.growth_interval = 5;
    c.log_every = 100;  // one read after step 0, the next at the end
    cases.push_back({"fp16_master_adamw_dynamic", c});
  }
  {
    // Convolutions, batch norm (FP32 parameters beside FP16 ones) and a skipped step.
    TrainConfig c = baseConfig(PrecisionMode::kFp16Master, OptimizerKind::kSgd);
    c.model.kind = "cnn";
    c.model.channels = {4, 8};
    c.model.fc = 16;
    c.loss_scaling.initial_scale = 16777216.0;
    c.loss_scaling.growth_interval = 4;
    cases.push_back({"cnn_fp16_master_sgd_dynamic", c});
  }
  return cases;
}

// One line per step, then the summary; doubles in full (%.17g), so that a regenerated copy shows any change.
std::string historyText(const TrainConfig& config) {
  auto backend = makeCpuBackend();
  TrainingRun run(*backend, config, makeSyntheticDataset(768, 3), makeSyntheticDataset(128, 4));
  std::string text = "step\tloss\tbatch_accuracy\tloss_scale\tskipped\tgradient_norm\n";
  auto summary = run.run([&](const StepRecord& r, std::int64_t) {
    text += fmt::format("{}\t{:.17g}\t{:.17g}\t{:.17g}\t{}\t{:.17g}\n", r.step, r.loss, r.batch_accuracy, r.loss_scale,
                        r.skipped ? 1 : 0, r.gradient_norm);
    return true;
  });
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (!summary.ok()) return text;
  text += fmt::format("steps {}\nskipped_steps {}\nfinal_loss_scale {:.17g}\ntest_accuracy {:.17g}\n", summary->steps,
                      summary->skipped_steps, summary->final_loss_scale, summary->test_accuracy);
  text += fmt::format("zero_gradient_share {:.17g}\nfp16_underflow_share {:.17g}\n", summary->zero_gradient_share,
                      summary->fp16_underflow_share);
  return text;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, line.find('\t') != std::string::npos ? '\t' : ' ')) out.push_back(field);
  return out;
}

// Equal where a field is a scale, a skip or a count; within 1e-5 relative where it is measured.
void expectSameHistory(const std::string& actual, const std::string& expected, const std::string& name) {
  std::istringstream a(actual), e(expected);
  std::string a_line, e_line;
  int line = 0;
  while (std::getline(e, e_line)) {
    ++line;
    ASSERT_TRUE(std::getline(a, a_line)) << name << ": the run ended before line " << line;
    const std::vector<std::string> af = fields(a_line), ef = fields(e_line);
    ASSERT_EQ(af.size(), ef.size()) << name << " line " << line << ": " << a_line << " vs " << e_line;
    const bool step_line = ef.size() == 6 && ef[0] != "step";
    for (std::size_t i = 0; i < ef.size(); ++i) {
      const bool exact = !step_line || i == 0 || i == 3 || i == 4;
      const bool measured_summary = !step_line && (ef[0] == "test_accuracy" || ef[0].ends_with("_share"));
      if (exact && !measured_summary) {
        EXPECT_EQ(af[i], ef[i]) << name << " line " << line << " field " << i;
      } else if (i > 0) {
        const double av = std::strtod(af[i].c_str(), nullptr), ev = std::strtod(ef[i].c_str(), nullptr);
        EXPECT_NEAR(av, ev, 1e-5 * std::max(1.0, std::abs(ev))) << name << " line " << line << " field " << i;
      }
    }
  }
  EXPECT_FALSE(std::getline(a, a_line)) << name << ": the run has more lines than " << line;
}

TEST(TrainingHistoryTest, EveryModeRecordsTheCheckedInHistory) {
  const char* update = std::getenv("AMPSCOPE_UPDATE_GOLDEN");
  for (const HistoryCase& c : historyCases()) {
    const std::string actual = historyText(c.config);
    const std::filesystem::path path = kHistoryDir / (std::string(c.name) + ".tsv");
    if (update != nullptr && std::string(update) == "1") {
      std::ofstream(path, std::ios::binary) << actual;
      continue;
    }
    const std::string expected = test::readFile(path.string());
    ASSERT_FALSE(expected.empty()) << path << " is missing";
    expectSameHistory(actual, expected, c.name);
  }
}

TEST(TrainingHistoryTest, TheCasesSkipGrowAndClip) {
  // The history is only worth holding if it exercises what a rewrite of the step could break.
  bool skipped = false, grew = false;
  for (const HistoryCase& c : historyCases()) {
    const std::string text = test::readFile((kHistoryDir / (std::string(c.name) + ".tsv")).string());
    std::istringstream in(text);
    std::string line;
    double last_scale = 0;
    while (std::getline(in, line)) {
      const std::vector<std::string> f = fields(line);
      if (f.size() != 6 || f[0] == "step") continue;
      const double scale = std::strtod(f[3].c_str(), nullptr);
      skipped |= f[4] == "1";
      grew |= last_scale > 0 && scale > last_scale;
      last_scale = scale;
    }
  }
  EXPECT_TRUE(skipped);
  EXPECT_TRUE(grew);
}

}  // namespace
}  // namespace ampscope::trainer
