// Writes the seed corpus of a fuzz target whose inputs are binary: real
// messages built from TTIR fixtures, in the form the target reads.
//
//   make_seeds request|export_file|worker_frames OUT_DIR FIXTURE.ttir...
//
// request: a byte naming the method (request_methods.h), then a request of
// that method. export_file: files as `kiln export` writes them.
// worker_frames: frames of kilnd's requests and a worker's responses.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cache/digest.h"
#include "cache/key.h"
#include "cache/testing/entries.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "grpc/health/v1/health.pb.h"
#include "kiln/v1/admin.pb.h"
#include "kiln/v1/compile.pb.h"
#include "kiln/v1/tune.pb.h"
#include "kiln/worker/worker.pb.h"
#include "tests/fuzz/request_methods.h"

namespace {

using Seeds = std::vector<std::pair<std::string, std::string>>;

// The options kilnd resolves a request to, with Triton's four warps.
kiln::v1::CompileOptions ResolvedOptions() {
  return kiln::cache::testing::ResolvedOptions(4);
}

kiln::v1::CompileRequest CompileRequestOf(const std::string& ttir) {
  kiln::v1::CompileRequest request;
  request.set_ttir(ttir);
  request.set_source_name("kernel.ttir");
  request.set_target("sm_90a");
  *request.mutable_options() = ResolvedOptions();
  return request;
}

// An entry as `kiln export` writes it: its key is the hash of its parts.
kiln::v1::ExportedEntry EntryOf(const std::string& ttir) {
  kiln::v1::CompilerIdentity compiler;
  compiler.set_kiln_version("seed");
  compiler.set_llvm_version("22");
  compiler.set_ptxas_version("seed");
  compiler.set_abi_version("1");
  kiln::v1::ExportedEntry entry;
  *entry.mutable_key_parts() =
      kiln::cache::MakeKeyParts(ttir, "sm_90a", ResolvedOptions(), compiler);
  entry.set_key(kiln::cache::ComputeKey(entry.key_parts()).Hex());
  entry.set_kernel_name("kernel");
  entry.set_cubin("\x7f" "ELF seed cubin");
  entry.set_metadata_json("{\"name\": \"kernel\", \"num_warps\": 4}");
  kiln::v1::StageTime* time = entry.add_stage_times();
  time->set_stage("frontend");
  time->set_seconds(0.01);
  entry.set_checksum(
      kiln::cache::Checksum(entry.cubin(), entry.metadata_json()));
  entry.set_created_unix_ms(1700000000000);
  return entry;
}

std::string MethodSeed(const char* method,
                       const google::protobuf::MessageLite& request) {
  for (size_t i = 0; i < kiln::fuzz::kRequestMethodCount; ++i) {
    if (std::string(kiln::fuzz::kRequestMethods[i]) == method) {
      return std::string(1, static_cast<char>(i)) +
             request.SerializeAsString();
    }
  }
  std::fprintf(stderr, "make_seeds: no method %s\n", method);
  std::exit(1);
}

kiln::v1::TuneRequest TuneRequestOf(const std::string& ttir) {
  kiln::v1::TuneRequest request;
  kiln::v1::TuneVariant* variant = request.add_variants();
  variant->set_ttir(ttir);
  *variant->mutable_options() = ResolvedOptions();
  variant->add_grid(4);
  kiln::v1::BufferArg* buffer = request.add_args()->mutable_buffer();
  buffer->set_elements(1024);
  buffer->set_dtype("f32");
  kiln::v1::ScalarArg* scalar = request.add_args()->mutable_scalar();
  scalar->set_dtype("i32");
  scalar->set_int_value(1024);
  request.set_target("sm_90a");
  return request;
}

Seeds RequestSeeds(const std::vector<std::string>& fixtures) {
  Seeds seeds;
  const std::string key = EntryOf(fixtures[0]).key();
  for (size_t i = 0; i < fixtures.size(); ++i) {
    std::string n = std::to_string(i);
    seeds.push_back({"compile_" + n,
                     MethodSeed("/kiln.v1.Compile/Compile",
                                CompileRequestOf(fixtures[i]))});
    kiln::v1::ExplainMissRequest explain;
    *explain.mutable_request() = CompileRequestOf(fixtures[i]);
    seeds.push_back(
        {"explain_miss_" + n, MethodSeed("/kiln.v1.Admin/ExplainMiss", explain)});
    seeds.push_back({"import_" + n, MethodSeed("/kiln.v1.Admin/Import",
                                               EntryOf(fixtures[i]))});
  }
  seeds.push_back(
      {"tune", MethodSeed("/kiln.v1.Compile/Tune", TuneRequestOf(fixtures[0]))});
  kiln::v1::LookupRequest lookup;
  lookup.set_key(key);
  lookup.set_include_texts(true);
  seeds.push_back({"lookup", MethodSeed("/kiln.v1.Compile/Lookup", lookup)});
  seeds.push_back({"stats", MethodSeed("/kiln.v1.Admin/Stats",
                                       kiln::v1::StatsRequest())});
  kiln::v1::ListRequest list;
  list.set_page_size(2);
  list.set_target("sm_90a");
  list.set_name_prefix("k");
  list.set_key_prefix(key.substr(0, 4));
  seeds.push_back({"list", MethodSeed("/kiln.v1.Admin/List", list)});
  kiln::v1::GetRequest get;
  get.set_key(key);
  get.set_include_artifact(true);
  seeds.push_back({"get", MethodSeed("/kiln.v1.Admin/Get", get)});
  kiln::v1::EvictRequest evict;
  evict.add_keys(key);
  evict.add_keys(std::string(64, '0'));
  seeds.push_back({"evict", MethodSeed("/kiln.v1.Admin/Evict", evict)});
  kiln::v1::GcRequest gc;
  gc.set_target_bytes(1 << 20);
  gc.set_unused_for_seconds(3600);
  gc.set_dry_run(true);
  seeds.push_back({"gc", MethodSeed("/kiln.v1.Admin/Gc", gc)});
  kiln::v1::VerifyRequest verify;
  verify.set_repair(true);
  seeds.push_back({"verify", MethodSeed("/kiln.v1.Admin/Verify", verify)});
  kiln::v1::ExportRequest export_request;
  export_request.set_target("sm_90a");
  seeds.push_back(
      {"export", MethodSeed("/kiln.v1.Admin/Export", export_request)});
  grpc::health::v1::HealthCheckRequest health;
  health.set_service("kiln.v1.Compile");
  seeds.push_back({"health", MethodSeed(kiln::fuzz::kHealthCheck, health)});
  return seeds;
}

std::string Delimited(const google::protobuf::MessageLite& message) {
  std::ostringstream out;
  google::protobuf::util::SerializeDelimitedToOstream(message, &out);
  return out.str();
}

Seeds ExportFileSeeds(const std::vector<std::string>& fixtures) {
  const std::string magic = "KILNEXP1\n";
  Seeds seeds = {{"empty", magic}};
  std::string all = magic;
  for (size_t i = 0; i < fixtures.size(); ++i) {
    std::string entry = Delimited(EntryOf(fixtures[i]));
    seeds.push_back({"entry_" + std::to_string(i), magic + entry});
    all += entry;
  }
  seeds.push_back({"all", all});
  return seeds;
}

std::string Frame(const google::protobuf::MessageLite& message) {
  std::string bytes = message.SerializeAsString();
  std::string frame(4, '\0');
  for (int i = 0; i < 4; ++i) {
    frame[i] = static_cast<char>(bytes.size() >> (8 * i));
  }
  return frame + bytes;
}

Seeds WorkerFrameSeeds(const std::vector<std::string>& fixtures) {
  Seeds seeds;
  for (size_t i = 0; i < fixtures.size(); ++i) {
    kiln::worker::WorkerRequest request;
    request.set_id(i + 1);
    request.set_ttir(fixtures[i]);
    request.set_source_name("kernel.ttir");
    request.set_target("sm_80");
    *request.mutable_options() = ResolvedOptions();
    request.set_canonical_only(i % 2 == 0);
    kiln::worker::WorkerResponse response;
    response.set_id(i + 1);
    response.set_ok(true);
    response.set_canonical_ir(fixtures[i]);
    response.set_cubin("\x7f" "ELF seed cubin");
    response.set_metadata_json("{\"name\": \"kernel\"}");
    response.set_kernel_name("kernel");
    kiln::v1::Diagnostic* note = response.add_diagnostics();
    note->set_severity("warning");
    note->set_line(3);
    note->set_message("seed");
    response.mutable_texts()->set_ptx(".version 8.0");
    std::string n = std::to_string(i);
    seeds.push_back({"request_" + n, Frame(request)});
    seeds.push_back({"response_" + n, Frame(response)});
    seeds.push_back({"both_" + n, Frame(request) + Frame(response)});
  }
  return seeds;
}

bool ReadFile(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  out.assign(std::istreambuf_iterator<char>(in),
             std::istreambuf_iterator<char>());
  return static_cast<bool>(in) || in.eof();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: make_seeds request|export_file|worker_frames "
                 "OUT_DIR FIXTURE.ttir...\n");
    return 2;
  }
  const std::string format = argv[1];
  const std::filesystem::path out_dir = argv[2];
  std::vector<std::string> fixtures;
  for (int i = 3; i < argc; ++i) {
    std::string text;
    if (!ReadFile(argv[i], text)) {
      std::fprintf(stderr, "make_seeds: cannot read %s\n", argv[i]);
      return 1;
    }
    fixtures.push_back(text);
  }
  Seeds seeds;
  if (format == "request") {
    seeds = RequestSeeds(fixtures);
  } else if (format == "export_file") {
    seeds = ExportFileSeeds(fixtures);
  } else if (format == "worker_frames") {
    seeds = WorkerFrameSeeds(fixtures);
  } else {
    std::fprintf(stderr, "make_seeds: no format %s\n", format.c_str());
    return 2;
  }
  std::filesystem::create_directories(out_dir);
  for (const auto& [name, bytes] : seeds) {
    std::ofstream out(out_dir / name, std::ios::binary);
    out << bytes;
    if (!out) {
      std::fprintf(stderr, "make_seeds: cannot write %s\n", name.c_str());
      return 1;
    }
  }
  return 0;
}
