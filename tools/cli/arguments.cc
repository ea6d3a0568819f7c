#include "tools/cli/arguments.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace loaderx::cli {
namespace {

const OptionSpec* FindOption(const CommandSpec& spec, absl::string_view name) {
  for (const OptionSpec& option : spec.options) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

}  // namespace

bool ParsedArguments::Has(absl::string_view option) const {
  return flags_.count(option) > 0 || values_.count(option) > 0;
}

std::optional<std::string> ParsedArguments::Value(
    absl::string_view option) const {
  auto it = values_.find(option);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<uint64_t> ParsedArguments::Number(absl::string_view option,
                                                 uint64_t fallback) const {
  std::optional<std::string> text = Value(option);
  if (!text) return fallback;
  uint64_t number;
  if (text->empty() ||
      text->find_first_not_of("0123456789") != std::string::npos ||
      !absl::SimpleAtoi(*text, &number)) {
    return absl::InvalidArgumentError(absl::StrCat(
        option, " takes a non-negative integer, not '", *text, "'"));
  }
  return number;
}

absl::StatusOr<ParsedArguments> ParseArguments(
    const CommandSpec& spec, absl::Span<const std::string> arguments) {
  ParsedArguments parsed;
  bool options_ended = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& word = arguments[i];
    if (options_ended || word == "-" || word.empty() || word[0] != '-') {
      parsed.positionals.push_back(word);
      continue;
    }
    if (word == "--") {
      options_ended = true;
      continue;
    }
    if (word == "--help" || word == "-h") {
      parsed.help = true;
      continue;
    }
    const size_t equals = word.find('=');
    const std::string name = word.substr(0, equals);
    const OptionSpec* option = FindOption(spec, name);
    if (option == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", name, "' for '", spec.name, "'"));
    }
    if (option->value_name.empty()) {
      if (equals != std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " takes no value"));
      }
      parsed.flags_.insert(name);
      continue;
    }
    std::string value;
    if (equals != std::string::npos) {
      value = word.substr(equals + 1);
    } else if (i + 1 < arguments.size()) {
      value = arguments[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " needs a value (", option->value_name, ")"));
    }
    if (parsed.values_.count(name) > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " is given more than once"));
    }
    parsed.values_[name] = std::move(value);
  }
  if (parsed.help) return parsed;
  const size_t count = parsed.positionals.size();
  if (count < spec.min_positionals || count > spec.max_positionals) {
    return absl::InvalidArgumentError(
        count < spec.min_positionals
            ? absl::StrCat("'", spec.name, "' needs ", spec.arguments)
            : absl::StrCat("'", spec.name, "' takes ", spec.arguments,
                           ", not '", parsed.positionals.back(), "'"));
  }
  return parsed;
}

std::string CommandHelp(const CommandSpec& spec, absl::string_view program) {
  std::string help = absl::StrCat("usage: ", program, " ", spec.name);
  if (!spec.options.empty()) help += " [options]";
  if (!spec.arguments.empty()) absl::StrAppend(&help, " ", spec.arguments);
  absl::StrAppend(&help, "\n\n", spec.summary, "\n");
  if (!spec.description.empty()) absl::StrAppend(&help, "\n", spec.description);
  if (help.back() != '\n') help.push_back('\n');
  help += "\noptions:\n";
  for (const OptionSpec& option : spec.options) {
    const std::string left =
        option.value_name.empty()
            ? option.name
            : absl::StrCat(option.name, " ", option.value_name);
    absl::StrAppendFormat(&help, "  %-22s %s\n", left, option.help);
  }
  absl::StrAppendFormat(&help, "  %-22s %s\n", "-h, --help",
                        "show this help and exit");
  return help;
}

}  // namespace loaderx::cli
