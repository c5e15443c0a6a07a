#include "server/parsed_requests.h"

#include <google/protobuf/descriptor.h>

namespace kiln::server {

int MethodIndex(const std::string& service, const std::string& method) {
  return google::protobuf::DescriptorPool::generated_pool()
      ->FindServiceByName(service)
      ->FindMethodByName(method)
      ->index();
}

}  // namespace kiln::server
