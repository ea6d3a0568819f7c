// Runs a function in a forked child under a time and a memory cap, and
// reports how it ended: the `ProbeResult` it returned, or the failure that
// ended it (`kCrash` for a signal, `kTimeout` when the time cap's SIGALRM
// or the parent's deadline fired, `kMemoryCap` for an allocation that
// failed at the cap). The child runs without the capabilities that let
// root ignore file modes, so permission cases mean what they say.

#ifndef LOADERX_TESTS_DAMAGE_CAPPED_SUBPROCESS_H_
#define LOADERX_TESTS_DAMAGE_CAPPED_SUBPROCESS_H_

#include <cstdint>
#include <functional>

#include "tests/damage/store_probe.h"

namespace loaderx::damage {

// `address_space` is RLIMIT_AS in bytes; it is not set in a build with
// AddressSanitizer or ThreadSanitizer (their shadow memory reserves
// terabytes of address space).
ProbeResult RunCapped(const std::function<ProbeResult()>& body, int seconds,
                      uint64_t address_space);

// Whether `RunCapped` can cap memory in this build.
bool MemoryCapAvailable();

}  // namespace loaderx::damage

#endif  // LOADERX_TESTS_DAMAGE_CAPPED_SUBPROCESS_H_
