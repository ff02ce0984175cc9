#pragma once
// Ties each profiled range of hardware metrics (trace::KernelMetrics) to the launch and the kernel
// it measured, the way the file allows:
//  - by correlation id, where the range carries its launch's (the collector's range profiler);
//  - by launch order, where the range profiler wrote one range per kernel launch but no time of
//    its own (Kineto's CUPTI-profiler mode: times_measured false): the n-th range of a process is
//    its n-th kernel launch call, provided the process has as many kernel launches as ranges,
//    none that launches a graph (whose kernels have no call each), and its ranges are of one
//    device (a launch call does not say its device);
//  - by time, where the range's times are the kernel's: the kernel of the same name on the same
//    device whose run holds the range's midpoint.
// A range left unmatched keeps its values (each metric's total per kernel name needs no match) and
// is counted in import_stats.not_understood with the reason.

#include <cstdint>
#include <string_view>

#include "trace/trace_model.h"

namespace ampscope::analyzer {

// Does this API call launch exactly one kernel? cudaLaunchKernel, cudaLaunchKernelExC,
// cudaLaunchCooperativeKernel, cuLaunchKernel(Ex), cuLaunchCooperativeKernel, the legacy cudaLaunch.
bool launchesOneKernel(std::string_view api_name);
// cudaGraphLaunch, cuGraphLaunch: many kernels, no call each.
bool launchesGraph(std::string_view api_name);

// Fills KernelMetrics::launch and ::kernel; returns how many ranges were matched to a launch or a
// kernel. Expects the kernels linked to their launches (Kernel::launch).
std::uint64_t linkKernelMetrics(trace::Trace& trace);

}  // namespace ampscope::analyzer
