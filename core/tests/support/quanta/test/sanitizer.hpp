#pragma once
// Whether this test binary runs under AddressSanitizer, which reserves terabytes of shadow address
// space: tests that impose an address-space limit (ulimit -v, RLIMIT_AS) cannot run under it.
namespace quanta::test {
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif
}  // namespace quanta::test

#define QUANTA_SKIP_UNDER_ASAN()                                                                            \
  if (::quanta::test::kAddressSanitizer)                                                                    \
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: an address-space limit " \
                  "cannot be set"
