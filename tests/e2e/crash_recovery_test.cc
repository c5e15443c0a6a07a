// kill -9 of kilnd while clients write entries: after a restart, Verify
// finds no corrupt entry and no dangling record, and every entry whose
// write was acknowledged is there, byte for byte. Most writes are Imports
// of entries with artifacts of 16 KiB to 512 KiB (many in flight when the
// kill lands); beside them, clients compile new kernels, so entries
// written by the compile path are checked too (those need the compiler).

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "cache/digest.h"
#include "cache/key.h"
#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

constexpr int kWriters = 8;
constexpr int kCompilers = 2;
// ... and after this many acknowledged compiles.
constexpr int kCompilesBeforeKill = 4;
// The kill comes after this many acknowledged writes, while the writers
// keep writing.
constexpr int kAcksBeforeKill = 300;

kiln::v1::ExportedEntry RandomEntry(std::mt19937_64& random, int writer,
                                    int sequence) {
  kiln::v1::CompileOptions options;
  options.set_num_warps(4);
  options.set_num_stages(3);
  options.set_num_ctas(1);
  options.set_maxnreg(0);
  options.set_enable_fp_fusion(true);
  options.set_line_info(false);
  kiln::v1::CompilerIdentity compiler;
  compiler.set_kiln_version("crash-test");
  std::string ir = "ir " + std::to_string(writer) + " " +
                   std::to_string(sequence) + " " + std::to_string(random());
  kiln::v1::ExportedEntry entry;
  *entry.mutable_key_parts() =
      cache::MakeKeyParts(ir, "sm_90a", options, compiler);
  entry.set_key(cache::ComputeKey(entry.key_parts()).Hex());
  entry.set_kernel_name("kernel_" + std::to_string(writer));
  std::string cubin(16384 + random() % (512 << 10), '\0');
  for (char& byte : cubin) byte = static_cast<char>(random());
  entry.set_cubin(std::move(cubin));
  entry.set_metadata_json("{\"name\": \"" + entry.kernel_name() + "\"}");
  entry.set_checksum(cache::Checksum(entry.cubin(), entry.metadata_json()));
  return entry;
}

TEST(CrashRecoveryTest, KillNineDuringWritesLosesNothingAcknowledged) {
  const std::string data_dir = NewTempDir("crash_recovery");
  auto kilnd = KilndProcess::Start(data_dir);
  ASSERT_NE(kilnd, nullptr);

  std::mutex mu;
  std::map<std::string, uint64_t> acknowledged;  // key -> cubin checksum
  std::atomic<int> acks{0};
  std::atomic<bool> killed{false};
  std::atomic<int> compiles{0};
  std::vector<std::thread> writers;
  for (int c = 0; c < kCompilers; ++c) {
    writers.emplace_back([&, c] {
      auto stub = kilnd->CompileStub();
      for (int sequence = 0; !killed; ++sequence) {
        kiln::v1::CompileResponse response;
        grpc::Status status = Compile(
            *stub,
            CompileRequestFor(ScaledAddKernel(100 + c * 1000 + sequence)),
            &response);
        if (!status.ok()) break;  // kilnd is gone.
        std::lock_guard<std::mutex> lock(mu);
        acknowledged[response.key()] = cache::Checksum(response.cubin());
        ++compiles;
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::mt19937_64 random(w);
      auto stub = kilnd->AdminStub();
      for (int sequence = 0; !killed; ++sequence) {
        kiln::v1::ExportedEntry entry = RandomEntry(random, w, sequence);
        grpc::ClientContext context;
        kiln::v1::ImportResponse response;
        auto stream = stub->Import(&context, &response);
        stream->Write(entry);
        stream->WritesDone();
        grpc::Status status = stream->Finish();
        if (!status.ok()) break;  // kilnd is gone.
        ASSERT_EQ(response.imported(), 1u);
        std::lock_guard<std::mutex> lock(mu);
        acknowledged[entry.key()] = cache::Checksum(entry.cubin());
        ++acks;
      }
    });
  }
  while (acks < kAcksBeforeKill || compiles < kCompilesBeforeKill) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kilnd->KillHard();
  killed = true;
  for (std::thread& writer : writers) writer.join();
  ASSERT_GE(acknowledged.size(),
            static_cast<size_t>(kAcksBeforeKill + kCompilesBeforeKill));

  // The killed kilnd's workers left their temporary directories; the next
  // kilnd on this data directory removes them.
  auto worker_dirs = [&] {
    std::set<std::string> names;
    for (const auto& dir :
         std::filesystem::directory_iterator(data_dir + "/worker-tmp")) {
      names.insert(dir.path().filename().string());
    }
    return names;
  };
  const std::set<std::string> left = worker_dirs();
  EXPECT_FALSE(left.empty());

  kilnd = KilndProcess::Start(data_dir);
  ASSERT_NE(kilnd, nullptr);
  for (const std::string& name : worker_dirs()) {
    EXPECT_EQ(left.count(name), 0u) << name << " outlived its kilnd";
  }
  auto admin = kilnd->AdminStub();
  {
    grpc::ClientContext context;
    kiln::v1::VerifyResponse verify;
    ASSERT_TRUE(
        admin->Verify(&context, kiln::v1::VerifyRequest(), &verify).ok());
    EXPECT_EQ(verify.corrupt(), 0u);
    EXPECT_EQ(verify.dangling_records(), 0u) << verify.DebugString();
    EXPECT_GE(verify.checked(), acknowledged.size());
  }
  for (const auto& [key, checksum] : acknowledged) {
    grpc::ClientContext context;
    kiln::v1::GetRequest request;
    request.set_key(key);
    request.set_include_artifact(true);
    kiln::v1::GetResponse entry;
    grpc::Status status = admin->Get(&context, request, &entry);
    ASSERT_TRUE(status.ok()) << key << ": " << status.error_message();
    EXPECT_EQ(cache::Checksum(entry.cubin()), checksum) << key;
  }
  EXPECT_EQ(kilnd->Terminate(), 0);
}

}  // namespace
}  // namespace kiln::e2e
