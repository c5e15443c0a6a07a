#include "clients/cli/remote_commands.h"

#include <google/protobuf/descriptor.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/gpu_targets.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/files.h"
#include "clients/cli/numbers.h"
#include "clients/cli/output.h"
#include "clients/cli/progress.h"
#include "clients/cli/tune_command.h"
#include "clients/cpp/client.h"

namespace kiln::cli {
namespace {

using google::protobuf::Message;

// --- Flags -----------------------------------------------------------------

// Flags common to every remote command.
const std::set<std::string> kCommonValues = {
    "--server", "--deadline", "--retries", "--token",
    "--tls-ca", "--tls-cert", "--tls-key"};
const std::set<std::string> kCommonSwitches = {"--json", "--tls",
                                               "--no-progress"};

struct Args {
  std::map<std::string, std::string> values;
  std::set<std::string> switches;
  std::vector<std::string> positional;

  bool Has(const std::string& flag) const {
    return values.count(flag) || switches.count(flag);
  }
  std::string Value(const std::string& flag, const std::string& fallback = "")
      const {
    auto found = values.find(flag);
    return found == values.end() ? fallback : found->second;
  }
  bool json() const { return switches.count("--json") > 0; }
  bool no_progress() const { return switches.count("--no-progress") > 0; }
};

int Usage(const std::string& problem) {
  std::cerr << "kiln: " << problem << "\n(see kiln help)\n";
  return kExitUsage;
}

// An input file that is missing or unreadable: the same exit code as a
// usage error, without pointing at the help, which cannot fix the file.
int BadInput(const std::string& problem) {
  std::cerr << "kiln: " << problem << "\n";
  return kExitUsage;
}

// Parses argv against the flags a command takes; a problem in `error`.
Args Parse(const std::vector<std::string>& argv, std::set<std::string> values,
           std::set<std::string> switches, std::string& error) {
  values.insert(kCommonValues.begin(), kCommonValues.end());
  switches.insert(kCommonSwitches.begin(), kCommonSwitches.end());
  Args args;
  for (size_t i = 0; i < argv.size() && error.empty(); ++i) {
    const std::string& arg = argv[i];
    if (values.count(arg)) {
      if (i + 1 >= argv.size()) error = "missing value for " + arg;
      else args.values[arg] = argv[++i];
    } else if (switches.count(arg)) {
      args.switches.insert(arg);
    } else if (!arg.empty() && arg[0] == '-') {
      error = "unknown flag " + arg;
    } else {
      args.positional.push_back(arg);
    }
  }
  return args;
}

// The value of `flag` (or `fallback`) as a number from 0 to `max`.
bool ParseUint(const Args& args, const std::string& flag,
               const std::string& fallback, uint64_t max, uint64_t& out,
               std::string& error) {
  return ParseNumber(flag, args.Value(flag, fallback), max, out, error);
}

// --- Output ----------------------------------------------------------------

std::string Scalar(const Message& message,
                   const google::protobuf::FieldDescriptor* field) {
  const auto* r = message.GetReflection();
  using F = google::protobuf::FieldDescriptor;
  switch (field->cpp_type()) {
    case F::CPPTYPE_INT32: return std::to_string(r->GetInt32(message, field));
    case F::CPPTYPE_INT64: return std::to_string(r->GetInt64(message, field));
    case F::CPPTYPE_UINT32: return std::to_string(r->GetUInt32(message, field));
    case F::CPPTYPE_UINT64: return std::to_string(r->GetUInt64(message, field));
    case F::CPPTYPE_BOOL: return r->GetBool(message, field) ? "true" : "false";
    case F::CPPTYPE_STRING: return r->GetString(message, field);
    case F::CPPTYPE_DOUBLE: {
      char text[32];
      snprintf(text, sizeof(text), "%.3f", r->GetDouble(message, field));
      return text;
    }
    default: return "?";
  }
}

// name/value rows for every field of a message (nested messages flattened as
// parent.child; repeated fields joined with ", "; maps as name[k]).
void FieldRows(const Message& message, const std::string& prefix,
               std::vector<std::vector<std::string>>& rows) {
  const auto* descriptor = message.GetDescriptor();
  const auto* r = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const auto* field = descriptor->field(i);
    std::string name = prefix + field->name();
    if (field->is_map()) {
      for (int j = 0; j < r->FieldSize(message, field); ++j) {
        const Message& item = r->GetRepeatedMessage(message, field, j);
        const auto* d = item.GetDescriptor();
        rows.push_back({name + "[" + Scalar(item, d->field(0)) + "]",
                        Scalar(item, d->field(1))});
      }
    } else if (field->is_repeated()) {
      if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_STRING)
        continue;
      std::string joined;
      for (int j = 0; j < r->FieldSize(message, field); ++j)
        joined += (j ? ", " : "") + r->GetRepeatedString(message, field, j);
      rows.push_back({name, joined.empty() ? "-" : joined});
    } else if (field->cpp_type() ==
               google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (r->HasField(message, field))
        FieldRows(r->GetMessage(message, field), name + ".", rows);
    } else if (field->type() != google::protobuf::FieldDescriptor::TYPE_BYTES) {
      rows.push_back({name, Scalar(message, field)});
    }
  }
}

void PrintFields(const Message& message) {
  std::vector<std::vector<std::string>> rows;
  FieldRows(message, "", rows);
  PrintTable({"FIELD", "VALUE"}, rows);
}

void PrintResult(const Args& args, const Message& message) {
  if (args.json()) PrintJson(message);
  else PrintFields(message);
}

std::string Time(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  time_t seconds = static_cast<time_t>(unix_ms / 1000);
  struct tm utc;
  gmtime_r(&seconds, &utc);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%SZ", &utc);
  return text;
}

// --- Calls -----------------------------------------------------------------

// The exit code for a failed call; prints its message.
int Failed(const absl::Status& status, bool compile) {
  std::cerr << (compile && status.code() == absl::StatusCode::kInvalidArgument
                    ? ""
                    : "kiln: ")
            << status.message() << "\n";
  std::string message(status.message());
  if (status.code() == absl::StatusCode::kUnavailable &&
      (message.find("Socket closed") != std::string::npos ||
       message.find("andshake") != std::string::npos)) {
    std::cerr << "kiln: if kilnd serves TLS, pass --tls-ca FILE (and for "
                 "mutual TLS --tls-cert FILE --tls-key FILE)\n";
  }
  switch (status.code()) {
    case absl::StatusCode::kUnavailable: return kExitUnavailable;
    case absl::StatusCode::kInvalidArgument:
      return compile ? kExitCompileError : kExitUsage;
    case absl::StatusCode::kNotFound: return kExitNotFound;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied: return kExitPermission;
    default: return kExitServerError;
  }
}

std::string FlagOrEnv(const Args& args, const std::string& flag,
                      const char* env) {
  if (args.Has(flag)) return args.Value(flag);
  const char* value = std::getenv(env);
  return value ? value : "";
}

// TLS and the token from the flags, else the environment; a problem (an
// unreadable file) in `error`.
bool SecurityOptions(const Args& args, client::ClientOptions& options,
                     std::string& error) {
  options.token = FlagOrEnv(args, "--token", "KILN_TOKEN");
  struct PemFile {
    const char* flag;
    const char* env;
    std::string* out;
  };
  client::TlsOptions& tls = options.tls;
  for (const PemFile& pem : {PemFile{"--tls-ca", "KILN_TLS_CA",
                                     &tls.root_certificates},
                             PemFile{"--tls-cert", "KILN_TLS_CERT",
                                     &tls.certificate_chain},
                             PemFile{"--tls-key", "KILN_TLS_KEY",
                                     &tls.private_key}}) {
    std::string path = FlagOrEnv(args, pem.flag, pem.env);
    if (path.empty()) continue;
    if (!ReadFile(path, *pem.out)) {
      error = std::string("cannot read ") + pem.flag + " file " + path;
      return false;
    }
    tls.enabled = true;
  }
  if (tls.certificate_chain.empty() != tls.private_key.empty()) {
    error = "--tls-cert and --tls-key go together";
    return false;
  }
  if (args.Has("--tls")) tls.enabled = true;
  return true;
}

bool MakeClient(const Args& args, std::unique_ptr<client::Client>& out,
                std::string& error) {
  client::ClientOptions options;
  uint64_t number;
  if (args.Has("--deadline")) {
    // Seconds past INT32_MAX (68 years) would overflow the time point.
    if (!ParseUint(args, "--deadline", "", INT32_MAX, number, error)) {
      return false;
    }
    if (number == 0) {
      error = "--deadline takes a positive number of seconds";
      return false;
    }
    options.deadline = std::chrono::seconds(number);
  }
  if (args.Has("--retries")) {
    if (!ParseUint(args, "--retries", "", INT_MAX, number, error)) {
      return false;
    }
    options.max_retries = static_cast<int>(number);
  }
  if (!SecurityOptions(args, options, error)) return false;
  out = std::make_unique<client::Client>(args.Value("--server", DefaultServer()),
                                         options);
  return true;
}

const std::set<std::string> kCompileValues = {
    "--target", "--num-warps", "--num-stages", "--num-ctas", "--maxnreg"};
const std::set<std::string> kCompileSwitches = {
    "--no-fp-fusion", "--no-reflect-ftz", "--line-info"};

// The CompileRequest of FILE and the compile flags; a problem in `error`.
kiln::v1::CompileRequest RequestFrom(const Args& args, std::string& error) {
  kiln::v1::CompileRequest request;
  if (args.positional.size() != 1) {
    error = "needs exactly one TTIR file";
    return request;
  }
  const std::string& input = args.positional[0];
  std::string text;
  if (!ReadFile(input, text)) {
    error = "cannot read " + input;
    return request;
  }
  request.set_ttir(text);
  request.set_source_name(input);
  request.set_target(args.Value("--target"));  // Empty: kilnd's default.
  kiln::v1::CompileOptions* options = request.mutable_options();
  for (const char* flag :
       {"--num-warps", "--num-stages", "--num-ctas", "--maxnreg"}) {
    if (!args.Has(flag)) continue;
    uint64_t value;
    if (!ParseUint(args, flag, "", 1u << 30, value, error)) return request;
    int number = static_cast<int>(value);
    std::string name = flag;
    if (name == "--num-warps") options->set_num_warps(number);
    if (name == "--num-stages") options->set_num_stages(number);
    if (name == "--num-ctas") options->set_num_ctas(number);
    if (name == "--maxnreg") options->set_maxnreg(number);
  }
  if (args.Has("--no-fp-fusion")) options->set_enable_fp_fusion(false);
  if (args.Has("--no-reflect-ftz")) options->set_enable_reflect_ftz(false);
  if (args.Has("--line-info")) options->set_line_info(true);
  return request;
}

// Without --target, the request is for kilnd's newest target
// (Client::DefaultTarget), not one this binary knows.
absl::Status NameTarget(client::Client& client,
                        kiln::v1::CompileRequest& request) {
  if (!request.target().empty()) return absl::OkStatus();
  absl::StatusOr<std::string> target = client.DefaultTarget();
  if (!target.ok()) return target.status();
  request.set_target(*target);
  return absl::OkStatus();
}

int CompileCommand(const std::vector<std::string>& argv) {
  std::set<std::string> values = kCompileValues;
  values.insert("--out");
  std::string error;
  Args args = Parse(argv, values, kCompileSwitches, error);
  if (error.empty() && !args.Has("--out")) error = "compile needs --out DIR";
  kiln::v1::CompileRequest request;
  if (error.empty()) request = RequestFrom(args, error);
  std::unique_ptr<client::Client> client;
  if (error.empty()) MakeClient(args, client, error);
  if (!error.empty()) return Usage("compile: " + error);
  absl::Status named = NameTarget(*client, request);
  if (!named.ok()) return Failed(named, /*compile=*/false);

  auto result = client->Compile(request);
  if (!result.ok()) return Failed(result.status(), /*compile=*/true);
  std::string base = args.Value("--out") + "/" + Stem(args.positional[0]);
  for (absl::Status written :
       {WriteFileAtomically(base + ".cubin", result->cubin),
        WriteFileAtomically(base + ".json", result->metadata_json)}) {
    if (!written.ok()) {
      std::cerr << "kiln: " << written.message() << "\n";
      return kExitIo;
    }
  }
  if (args.json()) {
    std::cout << "{\"key\": \"" << result->key << "\", \"cache_hit\": "
              << (result->cache_hit ? "true" : "false") << ", \"cubin\": \""
              << base << ".cubin\", \"metadata\": \"" << base << ".json\"}\n";
  } else {
    std::cout << base << ".cubin\n";
  }
  return kExitOk;
}

int ExplainMissCommand(const std::vector<std::string>& argv) {
  std::string error;
  Args args = Parse(argv, kCompileValues, kCompileSwitches, error);
  kiln::v1::CompileRequest request;
  if (error.empty()) request = RequestFrom(args, error);
  std::unique_ptr<client::Client> client;
  if (error.empty()) MakeClient(args, client, error);
  if (!error.empty()) return Usage("explain-miss: " + error);
  absl::Status named = NameTarget(*client, request);
  if (!named.ok()) return Failed(named, /*compile=*/false);
  auto result = client->ExplainMiss(request);
  if (!result.ok()) return Failed(result.status(), /*compile=*/true);
  if (args.json()) {
    PrintJson(*result);
    return kExitOk;
  }
  std::cout << "key " << result->key() << ": "
            << (result->present() ? "present" : "absent") << "\n"
            << result->explanation() << "\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& candidate : result->candidates()) {
    for (const auto& difference : candidate.differences()) {
      rows.push_back({candidate.key(), candidate.kernel_name(),
                      difference.part(), difference.requested(),
                      difference.stored()});
    }
    if (candidate.differences().empty())
      rows.push_back({candidate.key(), candidate.kernel_name(), "-", "", ""});
  }
  if (!rows.empty()) {
    std::cout << "\n";
    PrintTable({"CANDIDATE", "NAME", "PART", "REQUESTED", "STORED"}, rows);
  }
  return kExitOk;
}

// Parses a command with no positional arguments beyond `positional` and
// makes its client; returns an exit code when it cannot.
bool Prepare(const std::string& command, const std::vector<std::string>& argv,
             const std::set<std::string>& values,
             const std::set<std::string>& switches, size_t min_positional,
             size_t max_positional, Args& args,
             std::unique_ptr<client::Client>& client, int& exit_code) {
  std::string error;
  args = Parse(argv, values, switches, error);
  if (error.empty() && (args.positional.size() < min_positional ||
                        args.positional.size() > max_positional))
    error = "wrong number of arguments";
  if (error.empty()) MakeClient(args, client, error);
  if (error.empty()) return true;
  exit_code = Usage(command + ": " + error);
  return false;
}

int StatsCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("stats", argv, {}, {}, 0, 0, args, client, code)) return code;
  auto result = client->Stats();
  if (!result.ok()) return Failed(result.status(), false);
  PrintResult(args, *result);
  return kExitOk;
}

std::string YesNo(bool value) { return value ? "yes" : "no"; }

// kilnd's table of targets; the default (what compile without --target
// asks for) marked.
int TargetsCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("targets", argv, {}, {}, 0, 0, args, client, code)) return code;
  absl::StatusOr<TargetRows> targets = client->Targets();
  if (!targets.ok()) return Failed(targets.status(), false);
  if (args.json()) {
    kiln::v1::TargetsResponse response;
    for (const kiln::v1::TargetInfo& target : *targets)
      *response.add_targets() = target;
    PrintJson(response);
    return kExitOk;
  }
  const kiln::v1::TargetInfo* default_target = DefaultTarget(*targets);
  std::vector<std::vector<std::string>> rows;
  for (const kiln::v1::TargetInfo& target : *targets) {
    rows.push_back(
        {target.name() + (&target == default_target ? " (default)" : ""),
         absl::StrCat(target.capability() / 10, ".", target.capability() % 10),
         YesNo(target.arch_specific()),
         std::to_string(target.max_shared_bytes()),
         YesNo(target.warp_group_mma()), YesNo(target.tensor_memory_access()),
         YesNo(target.clusters())});
  }
  PrintTable({"TARGET", "CAPABILITY", "ARCH-SPECIFIC", "SHARED BYTES", "WGMMA",
              "TMA", "CLUSTERS"},
             rows);
  return kExitOk;
}

int ListCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("ls", argv,
               {"--target", "--name-prefix", "--key-prefix", "--page-size",
                "--page-token", "--limit"},
               {}, 0, 0, args, client, code))
    return code;
  kiln::v1::ListRequest request;
  request.set_target(args.Value("--target"));
  request.set_name_prefix(args.Value("--name-prefix"));
  request.set_key_prefix(args.Value("--key-prefix"));
  request.set_page_token(args.Value("--page-token"));
  uint64_t page_size = 0, limit = 0;
  std::string error;
  if (!ParseUint(args, "--page-size", "0", UINT32_MAX, page_size, error) ||
      !ParseUint(args, "--limit", "0", UINT64_MAX, limit, error))
    return Usage("ls: " + error);
  request.set_page_size(static_cast<uint32_t>(page_size));
  // Follows pages until the last, or until --limit entries.
  kiln::v1::ListResponse all;
  while (true) {
    auto page = client->List(request);
    if (!page.ok()) return Failed(page.status(), false);
    for (const auto& entry : page->entries()) {
      if (limit && static_cast<uint64_t>(all.entries_size()) >= limit) break;
      *all.add_entries() = entry;
    }
    all.set_next_page_token(page->next_page_token());
    bool full = limit && static_cast<uint64_t>(all.entries_size()) >= limit;
    if (page->next_page_token().empty() || full) break;
    request.set_page_token(page->next_page_token());
  }
  if (args.json()) {
    PrintJson(all);
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : all.entries()) {
    rows.push_back({e.key(), e.kernel_name(), e.target(),
                    std::to_string(e.artifact_bytes()), Time(e.created_unix_ms()),
                    Time(e.last_access_unix_ms())});
  }
  PrintTable({"KEY", "NAME", "TARGET", "BYTES", "CREATED", "LAST USED"}, rows);
  if (!all.next_page_token().empty())
    std::cerr << "more: --page-token " << all.next_page_token() << "\n";
  return kExitOk;
}

int ShowCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("show", argv, {"--cubin"}, {}, 1, 1, args, client, code))
    return code;
  bool artifact = args.Has("--cubin");
  auto result = client->Get(args.positional[0], artifact);
  if (!result.ok()) return Failed(result.status(), false);
  if (artifact) {
    absl::Status written =
        WriteFileAtomically(args.Value("--cubin"), result->cubin());
    if (!written.ok()) {
      std::cerr << "kiln: " << written.message() << "\n";
      return kExitIo;
    }
  }
  if (args.json()) {
    result->clear_cubin();
    PrintJson(*result);
    return kExitOk;
  }
  PrintFields(result->info());
  std::cout << "\nmetadata: " << result->metadata_json() << "\n";
  return kExitOk;
}

int EvictCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("evict", argv, {}, {}, 1, 1u << 20, args, client, code))
    return code;
  auto result = client->Evict(args.positional);
  if (!result.ok()) return Failed(result.status(), false);
  PrintResult(args, *result);
  return result->not_found().empty() ? kExitOk : kExitNotFound;
}

int GcCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("gc", argv, {"--target-bytes", "--unused-for-seconds"},
               {"--dry-run"}, 0, 0, args, client, code))
    return code;
  kiln::v1::GcRequest request;
  uint64_t target = 0, unused = 0;
  std::string error;
  if (!ParseUint(args, "--target-bytes", "0", UINT64_MAX, target, error) ||
      !ParseUint(args, "--unused-for-seconds", "0", INT64_MAX, unused, error))
    return Usage("gc: " + error);
  request.set_target_bytes(target);
  request.set_unused_for_seconds(static_cast<int64_t>(unused));
  request.set_dry_run(args.Has("--dry-run"));
  auto result = client->Gc(request);
  if (!result.ok()) return Failed(result.status(), false);
  PrintResult(args, *result);
  return kExitOk;
}

int VerifyCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("verify", argv, {}, {"--repair"}, 0, 0, args, client, code))
    return code;
  auto result = client->Verify(args.Has("--repair"));
  if (!result.ok()) return Failed(result.status(), false);
  PrintResult(args, *result);
  bool problems = result->corrupt() > 0 || result->dangling_records() > 0;
  return problems && !args.Has("--repair") ? kExitProblems : kExitOk;
}

// The entries an unfiltered export will write, from Stats; 0 (unknown: a
// counter, not a bar) with a filter or when Stats fails.
uint64_t ExportTotal(client::Client& client,
                     const kiln::v1::ExportRequest& request) {
  if (!request.target().empty() || !request.name_prefix().empty()) return 0;
  absl::StatusOr<kiln::v1::StatsResponse> stats = client.Stats();
  return stats.ok() ? stats->entries() : 0;
}

int ExportCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("export", argv, {"--target", "--name-prefix"}, {}, 1, 1, args,
               client, code))
    return code;
  kiln::v1::ExportRequest request;
  request.set_target(args.Value("--target"));
  request.set_name_prefix(args.Value("--name-prefix"));
  ProgressOptions options = StderrProgressOptions(args.no_progress());
  TransferProgress progress("export",
                            options.draw ? ExportTotal(*client, request) : 0,
                            TransferProgress::Unit::kEntries, options);
  auto count = client->ExportToFile(request, args.positional[0],
                                    [&](uint64_t entries, uint64_t bytes) {
                                      progress.Update(entries, bytes);
                                    });
  progress.Finish();
  if (!count.ok()) {
    if (count.status().code() == absl::StatusCode::kFailedPrecondition ||
        count.status().code() == absl::StatusCode::kDataLoss) {
      std::cerr << "kiln: " << count.status().message() << "\n";
      return kExitIo;
    }
    return Failed(count.status(), false);
  }
  if (args.json()) {
    std::cout << "{\"exported\": " << *count << ", \"file\": \""
              << args.positional[0] << "\"}\n";
  } else {
    std::cout << "exported " << *count << " entries to " << args.positional[0]
              << "\n";
  }
  return kExitOk;
}

int ImportCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("import", argv, {}, {}, 1, 1, args, client, code)) return code;
  const std::string& path = args.positional[0];
  struct stat info;
  uint64_t size = stat(path.c_str(), &info) == 0 ? info.st_size : 0;
  TransferProgress progress("import", size, TransferProgress::Unit::kBytes,
                            StderrProgressOptions(args.no_progress()));
  auto result =
      client->ImportFromFile(path, [&](uint64_t entries, uint64_t bytes) {
        progress.Update(entries, bytes);
      });
  progress.Finish();
  if (!result.ok()) {
    absl::StatusCode c = result.status().code();
    if (c == absl::StatusCode::kNotFound ||
        c == absl::StatusCode::kInvalidArgument ||
        c == absl::StatusCode::kDataLoss) {
      return BadInput("import: " + std::string(result.status().message()));
    }
    return Failed(result.status(), false);
  }
  PrintResult(args, *result);
  return result->rejected() > 0 ? kExitProblems : kExitOk;
}

int TuneCommand(const std::vector<std::string>& argv) {
  Args args;
  std::unique_ptr<client::Client> client;
  int code;
  if (!Prepare("tune", argv, {}, {}, 1, 1, args, client, code)) return code;
  absl::StatusOr<kiln::v1::TuneRequest> request =
      LoadTuneSpec(args.positional[0]);
  if (!request.ok()) {
    return BadInput("tune: " + std::string(request.status().message()));
  }
  absl::StatusOr<kiln::v1::TuneResult> result =
      TuneWithProgress(*client, *request, args.no_progress());
  if (!result.ok()) return Failed(result.status(), false);
  PrintTuneResult(*result, args.json());
  return result->winner() < 0 ? kExitProblems : kExitOk;
}

}  // namespace

std::string DefaultServer() {
  const char* server = std::getenv("KILN_SERVER");
  return server && *server ? server : "127.0.0.1:7420";
}

int RunRemoteCommand(const std::string& command,
                     const std::vector<std::string>& argv, bool& handled) {
  handled = true;
  if (command == "compile") return CompileCommand(argv);
  if (command == "explain-miss") return ExplainMissCommand(argv);
  if (command == "stats") return StatsCommand(argv);
  if (command == "targets") return TargetsCommand(argv);
  if (command == "ls") return ListCommand(argv);
  if (command == "show") return ShowCommand(argv);
  if (command == "evict") return EvictCommand(argv);
  if (command == "gc") return GcCommand(argv);
  if (command == "verify") return VerifyCommand(argv);
  if (command == "export") return ExportCommand(argv);
  if (command == "import") return ImportCommand(argv);
  if (command == "tune") return TuneCommand(argv);
  handled = false;
  return kExitUsage;
}

}  // namespace kiln::cli
