#include "src/registration.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace loaderx {

void AbortRegistration(const std::string& message) {
  std::fprintf(stderr, "loaderx: plugin registration failed: %s\n",
               message.c_str());
  std::abort();
}

}  // namespace loaderx
