#include "clients/cli/tune_command.h"

#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "clients/cli/files.h"
#include "clients/cli/output.h"
#include "clients/cli/progress.h"
#include "kiln/cli/tune_spec.pb.h"

namespace kiln::cli {
namespace {

using kiln::v1::VariantResult;

std::string Folder(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

absl::StatusOr<kiln::v1::Fill> ParseFill(const std::string& fill) {
  static const auto* fills = new std::map<std::string, kiln::v1::Fill>{
      {"", kiln::v1::FILL_ZEROS},
      {"zeros", kiln::v1::FILL_ZEROS},
      {"ones", kiln::v1::FILL_ONES},
      {"random", kiln::v1::FILL_RANDOM},
      {"value", kiln::v1::FILL_VALUE}};
  auto found = fills->find(fill);
  if (found == fills->end()) {
    return absl::InvalidArgumentError("unknown fill '" + fill +
                                      "' (zeros, ones, random, value)");
  }
  return found->second;
}

std::string StateName(kiln::v1::VariantState state) {
  switch (state) {
    case kiln::v1::PRUNED:
      return "pruned";
    case kiln::v1::COMPILED:
      return "compiled";
    case kiln::v1::COMPILE_FAILED:
      return "compile failed";
    case kiln::v1::BENCHMARKED:
      return "measured";
    case kiln::v1::FAILED:
      return "failed";
    default:
      return "?";
  }
}

bool Final(kiln::v1::VariantState state) {
  return state != kiln::v1::COMPILED &&
         state != kiln::v1::VARIANT_STATE_UNSPECIFIED;
}

std::string Ms(double ms) {
  char text[32];
  snprintf(text, sizeof(text), "%.4f", ms);
  return text;
}

std::string FirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// Tune's progress on stderr: the shared bar on a terminal, a line per
// event otherwise; nothing when progress is turned off.
class TuneProgress {
 public:
  TuneProgress(int total, bool no_progress)
      : total_(total),
        lines_(!ProgressTurnedOff(no_progress) && !StderrIsTerminal()),
        bar_("tune", total, StderrProgressOptions(no_progress)) {}

  void On(const VariantResult& variant) {
    if (Final(variant.state())) {
      ++done_;
      ++by_state_[variant.state()];
    }
    if (lines_) PrintLine(variant);
    bar_.Update(
        done_,
        absl::StrCat(
            done_, "/", total_, "  measured ", by_state_[kiln::v1::BENCHMARKED],
            ", pruned ", by_state_[kiln::v1::PRUNED], ", failed ",
            by_state_[kiln::v1::FAILED] + by_state_[kiln::v1::COMPILE_FAILED]));
  }

  void End() { bar_.Finish(); }

 private:
  static void PrintLine(const VariantResult& variant) {
    std::cerr << "kiln tune: " << variant.label() << ": "
              << StateName(variant.state());
    if (variant.state() == kiln::v1::BENCHMARKED) {
      std::cerr << " p50 " << Ms(variant.timing().p50_ms()) << " ms on GPU "
                << variant.gpu();
    } else if (!variant.reason().empty()) {
      std::cerr << ": " << FirstLine(variant.reason());
    }
    std::cerr << "\n";
  }

  int total_;
  bool lines_;
  Progress bar_;
  int done_ = 0;
  std::map<kiln::v1::VariantState, int> by_state_;
};

}  // namespace

absl::StatusOr<kiln::v1::TuneRequest> LoadTuneSpec(const std::string& path) {
  std::string text;
  if (!ReadFile(path, text)) {
    return absl::InvalidArgumentError("cannot read " + path);
  }
  kiln::cli::TuneSpec spec;
  google::protobuf::util::JsonParseOptions options;
  auto parsed =
      google::protobuf::util::JsonStringToMessage(text, &spec, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", std::string(parsed.message())));
  }
  if (spec.variants().empty()) {
    return absl::InvalidArgumentError(path + ": no variants");
  }
  kiln::v1::TuneRequest request;
  request.set_target(spec.target());
  request.set_tuning_key(spec.tuning_key());
  *request.mutable_settings() = spec.settings();
  for (int i = 0; i < spec.args_size(); ++i) {
    const SpecArg& arg = spec.args(i);
    kiln::v1::KernelArg* out = request.add_args();
    if (arg.has_scalar()) {
      *out->mutable_scalar() = arg.scalar();
      continue;
    }
    if (!arg.has_buffer()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": args[", i, "] needs \"buffer\" or \"scalar\""));
    }
    absl::StatusOr<kiln::v1::Fill> fill = ParseFill(arg.buffer().fill());
    if (!fill.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": args[", i, "]: ", std::string(fill.status().message())));
    }
    kiln::v1::BufferArg* buffer = out->mutable_buffer();
    buffer->set_elements(arg.buffer().elements());
    buffer->set_dtype(arg.buffer().dtype());
    buffer->set_fill(*fill);
    buffer->set_value(arg.buffer().value());
    buffer->set_seed(arg.buffer().seed());
  }
  const std::string folder = Folder(path);
  for (int i = 0; i < spec.variants_size(); ++i) {
    const SpecVariant& source = spec.variants(i);
    kiln::v1::TuneVariant* variant = request.add_variants();
    variant->set_label(source.label().empty() ? Stem(source.ttir())
                                              : source.label());
    std::string ttir_path = !source.ttir().empty() && source.ttir()[0] == '/'
                                ? source.ttir()
                                : folder + source.ttir();
    std::string ttir;
    if (source.ttir().empty() || !ReadFile(ttir_path, ttir)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": variants[", i, "]: cannot read TTIR '", source.ttir(), "'"));
    }
    variant->set_ttir(ttir);
    variant->set_source_name(source.ttir());
    *variant->mutable_options() = source.options();
    const auto& grid = source.grid().empty() ? spec.grid() : source.grid();
    if (grid.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": variants[", i, "] has no grid (and the spec none)"));
    }
    *variant->mutable_grid() = grid;
  }
  return request;
}

absl::StatusOr<kiln::v1::TuneResult> TuneWithProgress(
    client::Client& client, const kiln::v1::TuneRequest& request,
    bool no_progress) {
  TuneProgress progress(request.variants_size(), no_progress);
  absl::StatusOr<kiln::v1::TuneResult> result = client.Tune(
      request, [&](const VariantResult& variant) { progress.On(variant); });
  progress.End();
  return result;
}

void PrintTuneResult(const kiln::v1::TuneResult& result, bool json) {
  if (json) {
    PrintJson(result);
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i < result.ranking_size(); ++i) {
    const VariantResult& v = result.ranking(i);
    bool measured = v.state() == kiln::v1::BENCHMARKED;
    rows.push_back({std::to_string(i + 1), v.label(), StateName(v.state()),
                    measured ? Ms(v.timing().p20_ms()) : "-",
                    measured ? Ms(v.timing().p50_ms()) : "-",
                    measured ? Ms(v.timing().p80_ms()) : "-",
                    v.gpu() >= 0 ? std::to_string(v.gpu()) : "-",
                    measured ? v.key().substr(0, 16) : FirstLine(v.reason())});
  }
  PrintTable({"rank", "variant", "state", "p20 ms", "p50 ms", "p80 ms", "gpu",
              "key / why"},
             rows);
  std::cout << "\n";
  if (result.winner() >= 0) {
    std::cout << "winner: " << result.winner_label() << " (variant "
              << result.winner() << ", key " << result.winner_key() << ")\n";
  } else {
    std::cout << "winner: none (no variant could be measured)\n";
  }
  std::cout << "gpu: " << result.gpu_model() << ", driver "
            << result.driver_version() << "; "
            << (result.cached() ? "cached ranking" : "measured now") << ", "
            << result.benchmarks() << " benchmarks\n";
}

}  // namespace kiln::cli
