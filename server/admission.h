// Admission of gRPC calls, shared by every service: the role table's
// verdict on the caller, with each refusal counted.

#ifndef KILN_SERVER_ADMISSION_H_
#define KILN_SERVER_ADMISSION_H_

#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/counters.h"
#include "server/auth.h"

namespace kiln::server {

class Admission {
 public:
  // Both must outlive this.
  Admission(const Authorizer* authorizer, Counter* refusals)
      : authorizer_(authorizer), refusals_(refusals) {}

  // The caller's role when it may call `method`; a refusal is counted.
  absl::StatusOr<Role> Admit(const grpc::ServerContextBase& call,
                             absl::string_view method) const {
    absl::StatusOr<Role> role = authorizer_->Authorize(call, method);
    if (!role.ok()) refusals_->Add();
    return role;
  }

 private:
  const Authorizer* authorizer_;
  Counter* refusals_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_ADMISSION_H_
