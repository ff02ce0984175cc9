#pragma once
// Every value of the analyzer's enums that a rank's compact result holds, for reading them back
// from JSON by the names ampscope writes (JsonReader::named). A value added to one of these enums
// belongs here too: job_json_test reads every one back.

#include "analyzer/advice/recommendations.h"
#include "analyzer/core/tensor_core_verdict.h"
#include "analyzer/job/rank_result.h"
#include "analyzer/model/op_performance.h"
#include "analyzer/model/op_time_model.h"
#include "analyzer/model/op_work.h"
#include "analyzer/steps/collectives.h"
#include "analyzer/tables/layer_table.h"
#include "trace/trace_model.h"

namespace ampscope::reports::enum_values {

using analyzer::MathPrecision;
inline constexpr MathPrecision kPrecisions[] = {MathPrecision::kUnknown, MathPrecision::kFp32Simt, MathPrecision::kTf32,
                                                MathPrecision::kFp16,    MathPrecision::kBf16,     MathPrecision::kFp8,
                                                MathPrecision::kInt8,    MathPrecision::kFp4,      MathPrecision::kFp64,
                                                MathPrecision::kFp32};
using analyzer::CollectiveKind;
inline constexpr CollectiveKind kCollectiveKinds[] = {
    CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast,
    CollectiveKind::kReduce,    CollectiveKind::kSendRecv,  CollectiveKind::kAllToAll,      CollectiveKind::kOther};
using analyzer::RankOrigin;
inline constexpr RankOrigin kOrigins[] = {RankOrigin::kDistributedInfo, RankOrigin::kProcess, RankOrigin::kFileOrder};
using trace::Phase;
inline constexpr Phase kPhases[] = {Phase::kUnknown, Phase::kStep,      Phase::kData,     Phase::kForward,
                                    Phase::kBackward, Phase::kOptimizer, Phase::kLossScale};
using analyzer::Confidence;
inline constexpr Confidence kConfidences[] = {Confidence::kLow, Confidence::kMedium, Confidence::kHigh,
                                            Confidence::kMeasured};
using analyzer::TensorCoreUse;
inline constexpr TensorCoreUse kTensorCoreUses[] = {TensorCoreUse::kNo, TensorCoreUse::kYes, TensorCoreUse::kUnknown,
                                                    TensorCoreUse::kHost};
using analyzer::RooflineBound;
inline constexpr RooflineBound kBounds[] = {RooflineBound::kUnknown, RooflineBound::kCompute, RooflineBound::kMemory,
                                            RooflineBound::kLatency};
using analyzer::OpClass;
inline constexpr OpClass kOpClasses[] = {OpClass::kMatrix, OpClass::kMemory, OpClass::kCommunication};
using analyzer::WorkBasis;
inline constexpr WorkBasis kWorkBases[] = {WorkBasis::kUnknown,      WorkBasis::kShapes,        WorkBasis::kArguments,
                                           WorkBasis::kOutputShape,  WorkBasis::kConsumerInput, WorkBasis::kBackwardGradient};
using analyzer::AmpChange;
inline constexpr AmpChange kAmpChanges[] = {AmpChange::kAlreadyHalf, AmpChange::kTensorCores,
                                            AmpChange::kTensorCoresUnknownWork, AmpChange::kHalvedBytes,
                                            AmpChange::kKeptFp32, AmpChange::kCommunication, AmpChange::kNotProjected};
using analyzer::LayerState;
inline constexpr LayerState kLayerStates[] = {LayerState::kFine, LayerState::kMisaligned,
                                              LayerState::kEligibleNotTensorCore, LayerState::kHost};
using analyzer::Severity;
inline constexpr Severity kSeverities[] = {Severity::kInfo, Severity::kLow, Severity::kMedium, Severity::kHigh};

}  // namespace ampscope::reports::enum_values
