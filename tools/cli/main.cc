// The `loaderx` command (see cli.h).

#include <iostream>
#include <string>
#include <vector>

#include "tools/cli/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> arguments(argv, argv + argc);
  if (!arguments.empty()) arguments[0] = "loaderx";
  return loaderx::cli::RunCli(arguments, std::cout, std::cerr);
}
