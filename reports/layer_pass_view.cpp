#include "reports/layer_pass_view.h"

#include <set>
#include <string_view>

#include <fmt/format.h>

#include "reports/view_limits.h"

namespace ampscope::reports {

LayerPassView layerPassView(const analyzer::TraceSummary& summary, std::size_t top) {
  LayerPassView view;
  if (summary.layer_table.groups_operators) return view;
  std::set<std::string_view> shown;
  for (const analyzer::GroupTime& layer : firstN(summary.layers, top)) shown.insert(layer.name);
  for (const analyzer::LayerRow& row : summary.layer_table.rows) {
    if (shown.contains(row.layer)) view.rows.push_back(&row);
  }
  view.scope = shown.size() == summary.layers.size()
                   ? std::string("each layer")
                   : fmt::format("each of the {} heaviest layers (of {})", shown.size(), summary.layers.size());
  return view;
}

}  // namespace ampscope::reports
