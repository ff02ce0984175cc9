#include "analyzer/core/device_names.h"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace ampscope::analyzer {
namespace {

// A name is read as runs of letters and runs of digits, lower-cased ("A100-SXM4-80GB" is
// a 100 sxm 4 80 gb): whole runs compare, so "a 10" never matches "a 100", nor "l 4" "l 40 s".
bool isDigits(const std::string& atom) {
  return !atom.empty() && std::isdigit(static_cast<unsigned char>(atom[0])) != 0;
}

std::vector<std::string> atomsOf(std::string_view name) {
  std::vector<std::string> atoms;
  std::string atom;
  for (char raw : name) {
    const auto c = static_cast<unsigned char>(raw);
    if (std::isalnum(c) == 0) {
      if (!atom.empty()) atoms.push_back(std::move(atom));
      atom.clear();
      continue;
    }
    const bool digit = std::isdigit(c) != 0;
    if (!atom.empty() && digit != isDigits(atom)) {
      atoms.push_back(std::move(atom));
      atom.clear();
    }
    atom.push_back(static_cast<char>(std::tolower(c)));
  }
  if (!atom.empty()) atoms.push_back(std::move(atom));
  return atoms;
}

// The product line a model word implies where no brand word says it: RTX cards numbered xx00
// are professional (RTX 4000/6000 Ada), other RTX and GTX numbers GeForce; letter-and-number
// models (A100, H20, L4, T4, V100, GH200, B200) data-centre parts.
ProductLine lineOfFamily(std::string_view family) {
  if (family.starts_with("titan")) return ProductLine::kTitan;
  if (family.starts_with("gtx")) return ProductLine::kGeForce;
  if (family.starts_with("rtxpro") || family.starts_with("rtxa")) return ProductLine::kProfessional;
  if (family.starts_with("rtx")) {
    const std::string_view number = family.substr(3, 4);
    return number.size() == 4 && number.substr(2) == "00" ? ProductLine::kProfessional : ProductLine::kGeForce;
  }
  return ProductLine::kDataCentre;
}

class NameReader {
 public:
  explicit NameReader(std::string_view name) : atoms_(atomsOf(name)) {}

  std::optional<GpuNameReading> read() {
    while (i_ < atoms_.size()) step();
    if (key_.family.empty() || form_conflict_) return std::nullopt;
    if (brand_ == ProductLine::kUnknown) brand_ = lineOfFamily(key_.family);
    key_.line = brand_;
    key_.no_tensor_cores = key_.family.starts_with("gtx");
    return key_;
  }

 private:
  const std::string& at(std::size_t i) const {
    static const std::string kPastEnd;
    return i < atoms_.size() ? atoms_[i] : kPastEnd;
  }

  void setForm(BoardForm form) {
    if (key_.form != BoardForm::kAny && key_.form != form) form_conflict_ = true;
    key_.form = form;
  }

  // A word (or number) the reading does not know: the name still names its family, but matches
  // no row.
  void unknown() {
    key_.exact = false;
    ++i_;
  }

  // "MIG 1g.10gb", "MIG 1c.2g.20gb": the slice's profile, up to its memory size.
  void readMigProfile() {
    key_.exact = false;
    ++i_;
    while (i_ < atoms_.size() && (isDigits(at(i_)) || at(i_) == "g" || at(i_) == "c")) {
      if (isDigits(at(i_)) && at(i_ + 1) == "gb") {
        key_.mig_memory_gb = std::stoi(at(i_).substr(0, 4));
        i_ += 2;
        return;
      }
      ++i_;
    }
  }

  void step() {
    const std::string& atom = at(i_);
    if (isDigits(atom)) {
      // A number is a memory size ("80GB", "144G") or a part of the name this reading does not
      // know.
      if ((at(i_ + 1) == "gb" || at(i_ + 1) == "g") && atom.size() <= 4 && !key_.family.empty()) {
        key_.memory_gb = std::stoi(atom);
        i_ += 2;
      } else {
        unknown();
      }
    } else if (atom == "nvidia") {
      ++i_;
    } else if (atom == "tesla") {
      brand_ = ProductLine::kDataCentre;
      ++i_;
    } else if (atom == "geforce") {
      brand_ = ProductLine::kGeForce;
      ++i_;
    } else if (atom == "quadro" || atom == "ada" || atom == "generation") {
      brand_ = ProductLine::kProfessional;  // Quadro RTX 6000, RTX 6000 Ada Generation
      ++i_;
    } else if (atom == "blackwell" || atom == "edition" || atom == "server" || atom == "workstation") {
      ++i_;  // "RTX PRO 6000 Blackwell Server Edition": the generation and the 600 W editions
    } else if (atom == "sxm") {
      setForm(BoardForm::kSxm);
      // SXM2, SXM4, SXM5; but "SXM 40GB" is a memory size after the board.
      i_ += isDigits(at(i_ + 1)) && at(i_ + 2) != "gb" ? 2 : 1;
    } else if (atom == "dgxs" || atom == "dgx") {
      setForm(BoardForm::kSxm);  // DGX (Station) boards are NVLink modules at the SXM clocks
      ++i_;
    } else if (atom == "pcie") {
      setForm(BoardForm::kPcie);
      ++i_;
    } else if (atom == "pci") {
      setForm(BoardForm::kPcie);
      i_ += at(i_ + 1) == "e" ? 2 : 1;
    } else if (atom == "nvl") {
      setForm(BoardForm::kNvl);
      ++i_;
    } else if (atom == "hbm") {
      // The memory type ("HBM3", "HBM2e"): "NVIDIA H100 80GB HBM3" is the SXM part, which is
      // also the row the bare family name picks.
      i_ += isDigits(at(i_ + 1)) ? 2 : 1;
      if (at(i_) == "e") ++i_;
    } else if (atom == "pg" && isDigits(at(i_ + 1))) {
      // A board number ("A100-PG509-200"): PG509 is the SXM4 A100 board; the SKU after it
      // tells the memory size, which chooseRecordedDevice reads from the trace instead.
      if (at(i_ + 1) == "509") setForm(BoardForm::kSxm);
      i_ += isDigits(at(i_ + 2)) && at(i_ + 3) != "gb" ? 3 : 2;
    } else if (atom == "mig") {
      readMigProfile();
    } else if (atom == "ti") {
      key_.ti = true;
      ++i_;
    } else if (atom == "super") {
      key_.super = true;
      ++i_;
    } else if (key_.family.empty() && atom == "titan" && !at(i_ + 1).empty() && !isDigits(at(i_ + 1))) {
      key_.family = atom + at(i_ + 1);  // "TITAN RTX", "TITAN V"
      i_ += 2;
    } else if (key_.family.empty() && atom == "rtx" && (at(i_ + 1) == "pro" || at(i_ + 1) == "a") &&
               isDigits(at(i_ + 2))) {
      key_.family = atom + at(i_ + 1) + at(i_ + 2);  // "RTX PRO 6000", "RTX A6000"
      i_ += 3;
    } else if (key_.family.empty() && isDigits(at(i_ + 1))) {
      // The model: letters and a number ("H100", "GB200", "RTX 4090", "rtx4090"), and a
      // one-letter suffix that makes another product ("V100S", "L40S", "A10G", "RTX 4090 D").
      key_.family = atom + at(i_ + 1);
      i_ += 2;
      const std::string& suffix = at(i_);
      if (suffix.size() == 1 && !isDigits(suffix)) {
        key_.family += suffix;
        ++i_;
      }
    } else {
      unknown();
    }
  }

  std::vector<std::string> atoms_;
  std::size_t i_ = 0;
  GpuNameReading key_;
  ProductLine brand_ = ProductLine::kUnknown;
  bool form_conflict_ = false;
};

}  // namespace

const char* productLineName(ProductLine line) {
  switch (line) {
    case ProductLine::kUnknown: return "unknown";
    case ProductLine::kDataCentre: return "data-centre";
    case ProductLine::kProfessional: return "professional";
    case ProductLine::kGeForce: return "GeForce";
    case ProductLine::kTitan: return "TITAN";
  }
  return "unknown";
}

std::optional<GpuNameReading> readGpuName(std::string_view name) { return NameReader(name).read(); }

std::string familyWithoutSuffix(std::string_view family) {
  if (family.size() >= 2 && std::isdigit(static_cast<unsigned char>(family[family.size() - 2])) != 0 &&
      std::isalpha(static_cast<unsigned char>(family.back())) != 0) {
    return std::string(family.substr(0, family.size() - 1));
  }
  return std::string(family);
}

}  // namespace ampscope::analyzer
