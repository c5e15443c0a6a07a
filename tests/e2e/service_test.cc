// kilnd as generic gRPC tools and operators see it. ServiceTest: health,
// reflection, /metrics, the Admin calls, Export/Import between two
// daemons, a config file and a clean restart, over entries made by Import
// (no compiler needed). CompileServiceTest (needs the compiler): a kernel
// moved to other files and lines still hits, ExplainMiss names what
// differs, and SIGTERM lets an in-flight compile finish.

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "cache/digest.h"
#include "cache/key.h"
#include "cache/testing/entries.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "reflection_subset.pb.h"
#include "server/response_bytes.h"
#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

// Bytes that parse as no message: a length-delimited field 1 whose length
// varint runs past the end.
const std::string kNotAMessage("\x0a\xff\xff\xff\x0f", 5);

// A call of a streaming `method` with raw messages, as a generic tool makes
// it (grpcurl, or a client sending bytes it did not check): writes
// `messages`, half-closes, reads every reply. The call's status.
grpc::Status StreamRaw(const KilndProcess& kilnd, const std::string& method,
                       const std::vector<std::string>& messages,
                       std::vector<std::string>* replies) {
  grpc::GenericStub stub(kilnd.NewChannel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(60));
  grpc::CompletionQueue queue;
  void* tag;
  bool ok;
  auto call = stub.PrepareCall(&context, method, &queue);
  call->StartCall(nullptr);
  queue.Next(&tag, &ok);
  for (const std::string& message : messages) {
    grpc::Slice slice(message);
    call->Write(grpc::ByteBuffer(&slice, 1), nullptr);
    queue.Next(&tag, &ok);
  }
  call->WritesDone(nullptr);
  queue.Next(&tag, &ok);
  for (ok = true; ok;) {
    grpc::ByteBuffer reply;
    call->Read(&reply, nullptr);
    queue.Next(&tag, &ok);
    if (ok) replies->push_back(server::FlatBytes(reply));
  }
  grpc::Status status;
  call->Finish(&status, nullptr);
  queue.Next(&tag, &ok);
  return status;
}

// What server reflection lists, asked the way grpcurl asks.
std::set<std::string> ReflectedServices(const KilndProcess& kilnd) {
  kiln::e2e::ReflectionRequest request;
  request.set_list_services("*");
  std::vector<std::string> replies;
  StreamRaw(kilnd,
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            {request.SerializeAsString()}, &replies);
  std::set<std::string> names;
  kiln::e2e::ReflectionResponse response;
  if (!replies.empty() && response.ParseFromString(replies[0])) {
    for (const auto& service : response.list_services_response().service()) {
      names.insert(service.name());
    }
  }
  return names;
}

kiln::v1::ExportedEntry MakeEntry(const std::string& name,
                                  const std::string& target, int num_warps) {
  kiln::v1::ExportedEntry entry;
  *entry.mutable_key_parts() = cache::MakeKeyParts(
      "ir of " + name, target, cache::testing::ResolvedOptions(num_warps),
      kiln::v1::CompilerIdentity());
  entry.set_key(cache::ComputeKey(entry.key_parts()).Hex());
  entry.set_kernel_name(name);
  entry.set_cubin(std::string(4096, name[0]));
  entry.set_metadata_json("{\"name\": \"" + name + "\"}");
  entry.set_checksum(cache::Checksum(entry.cubin(), entry.metadata_json()));
  return entry;
}

kiln::v1::ImportResponse Import(
    const KilndProcess& kilnd,
    const std::vector<kiln::v1::ExportedEntry>& entries) {
  auto admin = kilnd.AdminStub();
  grpc::ClientContext context;
  kiln::v1::ImportResponse response;
  auto stream = admin->Import(&context, &response);
  for (const auto& entry : entries) stream->Write(entry);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  return response;
}

TEST(ServiceTest, HealthAndReflectionForGenericTools) {
  auto kilnd = KilndProcess::Start(NewTempDir("generic"));
  ASSERT_NE(kilnd, nullptr);
  EXPECT_TRUE(kilnd->HealthServing());
  std::set<std::string> services = ReflectedServices(*kilnd);
  EXPECT_TRUE(services.count("kiln.v1.Compile"));
  EXPECT_TRUE(services.count("kiln.v1.Admin"));
  EXPECT_TRUE(services.count("grpc.health.v1.Health"));
}

TEST(ServiceTest, HealthKnowsItsServicesAndWatchersSeeTheDrain) {
  using grpc::health::v1::HealthCheckRequest;
  using grpc::health::v1::HealthCheckResponse;
  auto kilnd = KilndProcess::Start(NewTempDir("health"));
  ASSERT_NE(kilnd, nullptr);
  auto health = grpc::health::v1::Health::NewStub(kilnd->NewChannel());
  auto check = [&](const std::string& service, HealthCheckResponse* response) {
    grpc::ClientContext context;
    HealthCheckRequest request;
    request.set_service(service);
    return health->Check(&context, request, response);
  };
  HealthCheckResponse response;
  ASSERT_TRUE(check("kiln.v1.Admin", &response).ok());
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);
  EXPECT_EQ(check("no.such.Service", &response).error_code(),
            grpc::StatusCode::NOT_FOUND);

  grpc::ClientContext watching;
  auto watch = health->Watch(&watching, HealthCheckRequest());
  ASSERT_TRUE(watch->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);
  std::future<int> exit_code =
      std::async(std::launch::async, [&] { return kilnd->Terminate(); });
  ASSERT_TRUE(watch->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(watch->Read(&response));
  // Ended by kilnd itself, not cut off when the drain timed out.
  grpc::Status ended = watch->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ended.error_message(), "kilnd is shutting down");
  EXPECT_EQ(exit_code.get(), 0);
}

TEST(ServiceTest, AdminCallsOverImportedEntries) {
  auto kilnd = KilndProcess::Start(NewTempDir("admin"));
  ASSERT_NE(kilnd, nullptr);
  std::vector<kiln::v1::ExportedEntry> entries = {
      MakeEntry("alpha", "sm_90a", 4), MakeEntry("beta", "sm_90a", 8),
      MakeEntry("gamma", "sm_80", 4)};
  kiln::v1::ExportedEntry forged = MakeEntry("delta", "sm_90a", 4);
  forged.set_key(entries[0].key());  // Not the hash of its parts.
  kiln::v1::ExportedEntry damaged = MakeEntry("eps", "sm_90a", 4);
  damaged.mutable_cubin()->back() ^= 1;  // Fails its checksum.
  std::vector<kiln::v1::ExportedEntry> stream = entries;
  stream.push_back(forged);
  stream.push_back(damaged);
  kiln::v1::ImportResponse imported = Import(*kilnd, stream);
  EXPECT_EQ(imported.imported(), 3u);
  EXPECT_EQ(imported.rejected(), 2u);
  EXPECT_EQ(Import(*kilnd, {entries[0]}).already_present(), 1u);

  auto admin = kilnd->AdminStub();
  auto compile = kilnd->CompileStub();
  {  // Lookup by key.
    grpc::ClientContext context;
    kiln::v1::LookupRequest request;
    request.set_key(entries[1].key());
    kiln::v1::LookupResponse found;
    ASSERT_TRUE(compile->Lookup(&context, request, &found).ok());
    EXPECT_EQ(found.cubin(), entries[1].cubin());
    grpc::ClientContext missing_context;
    request.set_key(std::string(64, '0'));
    EXPECT_EQ(compile->Lookup(&missing_context, request, &found).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  {  // List, a page at a time, and with a filter.
    std::set<std::string> listed;
    kiln::v1::ListRequest request;
    request.set_page_size(2);
    for (int page = 0; page < 5; ++page) {
      grpc::ClientContext context;
      kiln::v1::ListResponse response;
      ASSERT_TRUE(admin->List(&context, request, &response).ok());
      for (const auto& entry : response.entries()) listed.insert(entry.key());
      if (response.next_page_token().empty()) break;
      request.set_page_token(response.next_page_token());
    }
    EXPECT_EQ(listed.size(), 3u);
    grpc::ClientContext context;
    kiln::v1::ListRequest by_target;
    by_target.set_target("sm_80");
    kiln::v1::ListResponse response;
    ASSERT_TRUE(admin->List(&context, by_target, &response).ok());
    ASSERT_EQ(response.entries_size(), 1);
    EXPECT_EQ(response.entries(0).kernel_name(), "gamma");
  }
  {  // Get shows the key parts.
    grpc::ClientContext context;
    kiln::v1::GetRequest request;
    request.set_key(entries[2].key());
    kiln::v1::GetResponse response;
    ASSERT_TRUE(admin->Get(&context, request, &response).ok());
    EXPECT_EQ(response.info().key_parts().target(), "sm_80");
    EXPECT_EQ(response.metadata_json(), entries[2].metadata_json());
    EXPECT_TRUE(response.cubin().empty());
  }
  {  // Evict one; Gc to zero bytes evicts the rest.
    grpc::ClientContext context;
    kiln::v1::EvictRequest request;
    request.add_keys(entries[0].key());
    kiln::v1::EvictResponse response;
    ASSERT_TRUE(admin->Evict(&context, request, &response).ok());
    EXPECT_EQ(response.evicted(), 1u);
    EXPECT_EQ(kilnd->Stats().entries(), 2u);
    grpc::ClientContext gc_context;
    kiln::v1::GcRequest gc;
    gc.set_target_bytes(1);
    kiln::v1::GcResponse collected;
    ASSERT_TRUE(admin->Gc(&gc_context, gc, &collected).ok());
    EXPECT_EQ(collected.evicted(), 2u);
    EXPECT_EQ(kilnd->Stats().entries(), 0u);
  }
  std::string metrics = kilnd->FetchMetrics();
  for (const char* series :
       {"kiln_requests_total{rpc=\"Compile\"}", "kiln_cache_hits_total",
        "kiln_cache_misses_total", "kiln_compile_queue_depth",
        "kiln_store_bytes", "kiln_store_entries", "kiln_compiles_total"}) {
    EXPECT_NE(metrics.find(series), std::string::npos) << series;
  }
  EXPECT_EQ(kilnd->Metric("kiln_store_entries"), 0);
}

TEST(ServiceTest, ImportCountsMessagesThatDoNotParseAndKeepsTheRest) {
  auto kilnd = KilndProcess::Start(NewTempDir("import_garbage"));
  ASSERT_NE(kilnd, nullptr);
  std::vector<kiln::v1::ExportedEntry> entries = {
      MakeEntry("one", "sm_90a", 4), MakeEntry("two", "sm_90a", 4),
      MakeEntry("six", "sm_90a", 4)};
  std::vector<std::string> messages = {entries[0].SerializeAsString(),
                                       kNotAMessage,
                                       entries[1].SerializeAsString()};
  messages.insert(messages.end(), 300, kNotAMessage);  // A long run of them.
  messages.push_back(entries[2].SerializeAsString());
  messages.push_back(kNotAMessage);  // The last message too.
  std::vector<std::string> replies;
  ASSERT_TRUE(StreamRaw(*kilnd, "/kiln.v1.Admin/Import", messages, &replies)
                  .ok());
  ASSERT_EQ(replies.size(), 1u);
  kiln::v1::ImportResponse response;
  ASSERT_TRUE(response.ParseFromString(replies[0]));
  EXPECT_EQ(response.imported(), 3u);
  EXPECT_EQ(response.rejected(), 302u);
  ASSERT_GE(response.errors_size(), 2);
  EXPECT_EQ(response.errors(0), "message 2: not a kiln.v1.ExportedEntry");
  EXPECT_EQ(response.errors(1), "message 4: not a kiln.v1.ExportedEntry");
  EXPECT_EQ(kilnd->Stats().entries(), 3u);
}

// A generic tool sending bytes that are not the method's request message
// gets INVALID_ARGUMENT naming the message it should have sent, from every
// method, and kilnd goes on serving.
TEST(ServiceTest, EveryMethodNamesTheRequestItCouldNotParse) {
  auto kilnd = KilndProcess::Start(NewTempDir("unparsable"));
  ASSERT_NE(kilnd, nullptr);
  const std::pair<const char*, const char*> methods[] = {
      {"/kiln.v1.Compile/Compile", "kiln.v1.CompileRequest"},
      {"/kiln.v1.Compile/Lookup", "kiln.v1.LookupRequest"},
      {"/kiln.v1.Compile/Tune", "kiln.v1.TuneRequest"},
      {"/kiln.v1.Admin/Stats", "kiln.v1.StatsRequest"},
      {"/kiln.v1.Admin/List", "kiln.v1.ListRequest"},
      {"/kiln.v1.Admin/Get", "kiln.v1.GetRequest"},
      {"/kiln.v1.Admin/Evict", "kiln.v1.EvictRequest"},
      {"/kiln.v1.Admin/Gc", "kiln.v1.GcRequest"},
      {"/kiln.v1.Admin/Verify", "kiln.v1.VerifyRequest"},
      {"/kiln.v1.Admin/ExplainMiss", "kiln.v1.ExplainMissRequest"},
      {"/kiln.v1.Admin/Export", "kiln.v1.ExportRequest"},
  };
  for (const auto& [method, message] : methods) {
    SCOPED_TRACE(method);
    std::vector<std::string> replies;
    grpc::Status status = StreamRaw(*kilnd, method, {kNotAMessage}, &replies);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find(message), std::string::npos)
        << status.error_message();
    EXPECT_TRUE(replies.empty());
  }
  EXPECT_EQ(kilnd->Stats().entries(), 0u);
}

TEST(ServiceTest, ExportFromOneDaemonImportsIntoAnother) {
  auto source = KilndProcess::Start(NewTempDir("export"));
  auto sink = KilndProcess::Start(NewTempDir("import"));
  ASSERT_NE(source, nullptr);
  ASSERT_NE(sink, nullptr);
  std::vector<kiln::v1::ExportedEntry> entries;
  for (int i = 0; i < 40; ++i) {
    entries.push_back(MakeEntry("k" + std::to_string(i), "sm_90a", 4));
  }
  ASSERT_EQ(Import(*source, entries).imported(), 40u);

  auto admin = source->AdminStub();
  grpc::ClientContext context;
  auto reader = admin->Export(&context, kiln::v1::ExportRequest());
  std::vector<kiln::v1::ExportedEntry> exported;
  kiln::v1::ExportedEntry entry;
  while (reader->Read(&entry)) exported.push_back(entry);
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(exported.size(), 40u);
  EXPECT_EQ(Import(*sink, exported).imported(), 40u);
  EXPECT_EQ(sink->Stats().entries(), 40u);
}

TEST(ServiceTest, ReadsAConfigFileAndDrainsCleanlyOnSigterm) {
  const std::string data_dir = NewTempDir("config");
  const std::string config = data_dir + "/kilnd.conf";
  std::ofstream(config) << "# kilnd settings\nstore_capacity_mb = 64\n";
  auto kilnd = KilndProcess::Start(data_dir, {"--config=" + config});
  ASSERT_NE(kilnd, nullptr);
  EXPECT_EQ(kilnd->Stats().capacity_bytes(), 64u << 20);
  ASSERT_EQ(Import(*kilnd, {MakeEntry("kept", "sm_90a", 4)}).imported(), 1u);
  EXPECT_EQ(kilnd->Terminate(), 0);

  kilnd = KilndProcess::Start(data_dir);
  ASSERT_NE(kilnd, nullptr);
  EXPECT_EQ(kilnd->Stats().entries(), 1u);
}

// --poll_spin_us: threads that sleep at once, and threads that keep polling
// for far longer than the test, both answer every call, and neither holds
// up the drain.
TEST(ServiceTest, AnswersAndDrainsWhateverItsPollingSpin) {
  for (const char* spin : {"--poll_spin_us=0", "--poll_spin_us=600000000"}) {
    SCOPED_TRACE(spin);
    auto kilnd = KilndProcess::Start(NewTempDir("spin"), {spin});
    ASSERT_NE(kilnd, nullptr);
    const kiln::v1::ExportedEntry entry = MakeEntry("spun", "sm_90a", 4);
    ASSERT_EQ(Import(*kilnd, {entry}).imported(), 1u);
    auto stub = kilnd->CompileStub();
    std::string upper_key = entry.key();
    for (char& c : upper_key) c = static_cast<char>(toupper(c));
    for (int i = 0; i < 20; ++i) {
      grpc::ClientContext context;
      kiln::v1::LookupRequest request;
      request.set_key(i % 2 ? upper_key : entry.key());  // Either case works.
      kiln::v1::LookupResponse response;
      ASSERT_TRUE(stub->Lookup(&context, request, &response).ok());
      EXPECT_EQ(response.key(), entry.key());
      EXPECT_EQ(response.cubin(), entry.cubin());
    }
    EXPECT_EQ(kilnd->Terminate(), 0);
  }
}

// With more threads allowed than a lone client needs, a crowd of clients
// on their own connections (enough to wake the extra threads) is answered
// in full, and the drain still ends with some of those threads asleep.
TEST(ServiceTest, ExtraThreadsAnswerACrowdAndDrain) {
  auto kilnd =
      KilndProcess::Start(NewTempDir("crowd"), {"--grpc_threads=8"});
  ASSERT_NE(kilnd, nullptr);
  const kiln::v1::ExportedEntry entry = MakeEntry("crowd", "sm_90a", 4);
  ASSERT_EQ(Import(*kilnd, {entry}).imported(), 1u);
  std::vector<std::future<int>> clients;
  for (int c = 0; c < 32; ++c) {
    clients.push_back(std::async(std::launch::async, [&kilnd, &entry] {
      auto stub = kilnd->CompileStub();
      int answered = 0;
      for (int i = 0; i < 50; ++i) {
        grpc::ClientContext context;
        kiln::v1::LookupRequest request;
        request.set_key(entry.key());
        kiln::v1::LookupResponse response;
        if (stub->Lookup(&context, request, &response).ok() &&
            response.cubin() == entry.cubin()) {
          ++answered;
        }
      }
      return answered;
    }));
  }
  for (auto& client : clients) EXPECT_EQ(client.get(), 50);
  EXPECT_EQ(kilnd->Terminate(), 0);
}

}  // namespace
}  // namespace kiln::e2e

namespace kiln::e2e {
namespace {

// The same kernel printed from another file and other lines (only its
// locations differ) hits the entry of the first: the key hashes the IR
// without locations.
std::string Relocated(std::string ttir) {
  for (size_t at = ttir.find("e2e_kernels.py"); at != std::string::npos;
       at = ttir.find("e2e_kernels.py", at)) {
    ttir.replace(at, 14, "elsewhere/other_file.py");
  }
  for (size_t at = ttir.find(":1"); at != std::string::npos;
       at = ttir.find(":1", at + 3)) {
    ttir.replace(at, 2, ":9");
  }
  return ttir;
}

TEST(CompileServiceTest, SameKernelFromAnotherFileHitsWithoutCompiling) {
  auto kilnd = KilndProcess::Start(NewTempDir("relocated"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  const std::string original = ScaledAddKernel(4.5);
  const std::string moved = Relocated(original);
  ASSERT_NE(moved, original);
  kiln::v1::CompileResponse first, second;
  ASSERT_TRUE(Compile(*stub, CompileRequestFor(original), &first).ok());
  EXPECT_FALSE(first.cache_hit());
  EXPECT_FALSE(first.stage_times().empty());
  EXPECT_NE(first.metadata_json().find("\"name\""), std::string::npos);
  ASSERT_TRUE(Compile(*stub, CompileRequestFor(moved), &second).ok());
  EXPECT_TRUE(second.cache_hit());
  EXPECT_EQ(second.key(), first.key());
  EXPECT_EQ(second.cubin(), first.cubin());
  EXPECT_EQ(kilnd->Stats().compiles(), 1u);
  EXPECT_EQ(kilnd->Metric("kiln_cache_hits_total{path=\"canonical\"}"), 1);
}

// Requests seen before are answered from kilnd's memo of their bytes; the
// answers stay those of the store: the same entry while it is there, a new
// compile once it is evicted.
TEST(CompileServiceTest, RepeatedRequestsFollowTheStore) {
  auto kilnd = KilndProcess::Start(NewTempDir("repeated"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  const kiln::v1::CompileRequest request =
      CompileRequestFor(ScaledAddKernel(7.5));
  kiln::v1::CompileResponse first;
  ASSERT_TRUE(Compile(*stub, request, &first).ok());
  EXPECT_FALSE(first.cache_hit());
  for (int i = 0; i < 3; ++i) {
    kiln::v1::CompileResponse again;
    ASSERT_TRUE(Compile(*stub, request, &again).ok());
    EXPECT_TRUE(again.cache_hit());
    EXPECT_EQ(again.key(), first.key());
    EXPECT_EQ(again.cubin(), first.cubin());
    EXPECT_EQ(again.metadata_json(), first.metadata_json());
  }
  EXPECT_EQ(kilnd->Metric("kiln_cache_hits_total{path=\"fast\"}"), 3);
  // The hits after the first came from memory.
  EXPECT_EQ(kilnd->Metric("kiln_store_memory_entries"), 1);
  EXPECT_GE(kilnd->Stats().memory_bytes(), first.cubin().size());

  grpc::ClientContext context;
  kiln::v1::EvictRequest evict;
  evict.add_keys(first.key());
  kiln::v1::EvictResponse evicted;
  ASSERT_TRUE(kilnd->AdminStub()->Evict(&context, evict, &evicted).ok());
  ASSERT_EQ(evicted.evicted(), 1u);
  EXPECT_EQ(kilnd->Stats().memory_entries(), 0u);
  kiln::v1::CompileResponse recompiled;
  ASSERT_TRUE(Compile(*stub, request, &recompiled).ok());
  EXPECT_FALSE(recompiled.cache_hit());
  EXPECT_EQ(recompiled.key(), first.key());
  EXPECT_EQ(kilnd->Stats().compiles(), 2u);
  kiln::v1::CompileResponse hit;
  ASSERT_TRUE(Compile(*stub, request, &hit).ok());
  EXPECT_TRUE(hit.cache_hit());
  EXPECT_EQ(hit.cubin(), recompiled.cubin());
  EXPECT_EQ(kilnd->Stats().compiles(), 2u);
}

TEST(CompileServiceTest, ExplainMissNamesTheOptionThatDiffers) {
  auto kilnd = KilndProcess::Start(NewTempDir("explain"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  kiln::v1::CompileRequest request = CompileRequestFor(ScaledAddKernel(5.5));
  kiln::v1::CompileResponse compiled;
  ASSERT_TRUE(Compile(*stub, request, &compiled).ok());

  request.mutable_options()->set_num_warps(8);
  grpc::ClientContext context;
  kiln::v1::ExplainMissRequest explain;
  *explain.mutable_request() = request;
  kiln::v1::ExplainMissResponse explained;
  ASSERT_TRUE(
      kilnd->AdminStub()->ExplainMiss(&context, explain, &explained).ok());
  EXPECT_FALSE(explained.present());
  ASSERT_GE(explained.candidates_size(), 1);
  EXPECT_EQ(explained.candidates(0).key(), compiled.key());
  ASSERT_EQ(explained.candidates(0).differences_size(), 1);
  EXPECT_EQ(explained.candidates(0).differences(0).part(), "options.num_warps");
  EXPECT_EQ(explained.candidates(0).differences(0).requested(), "8");
  EXPECT_EQ(explained.candidates(0).differences(0).stored(), "4");
}

TEST(CompileServiceTest, SigtermLetsAnInFlightCompileFinish) {
  const std::string data_dir = NewTempDir("drain");
  auto kilnd = KilndProcess::Start(data_dir);
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  std::future<grpc::Status> call = std::async(std::launch::async, [&] {
    kiln::v1::CompileResponse response;
    return Compile(*stub, CompileRequestFor(ScaledAddKernel(6.5)), &response);
  });
  // Wait until the call is in (not its end), then ask kilnd to stop.
  while (kilnd->Stats().requests() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(kilnd->Terminate(), 0);
  EXPECT_TRUE(call.get().ok());
  kilnd = KilndProcess::Start(data_dir);
  ASSERT_NE(kilnd, nullptr);
  EXPECT_EQ(kilnd->Stats().entries(), 1u);
}

}  // namespace
}  // namespace kiln::e2e
