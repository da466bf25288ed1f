// porter compat: PTX's %globaltimer and nanosleep (and CUDA's __nanosleep) on CDNA.
//
// %globaltimer counts nanoseconds. wall_clock64() (S_MEMREALTIME) counts at a constant rate
// that HIP reports as hipDeviceAttributeWallClockRate (kHz); 100 MHz is the rate on MI200 and
// MI300 parts (?: check on the MI350X and define PORTER_WALL_CLOCK_HZ if it differs).
// nanosleep(t) sleeps within [0, 2t] ns (PTX ISA 8.5, "nanosleep"). S_SLEEP takes a constant
// and sleeps about 64 * imm clocks (AMD CDNA3 ISA, S_SLEEP; imm <= 127), so a run-time t is
// slept in chunks at the MI350X's 2200 MHz peak clock (HARDWARE.md): 127, then its bits.
#ifndef PORTER_WALL_CLOCK_HZ
#define PORTER_WALL_CLOCK_HZ 100000000ull
#endif
__device__ inline unsigned long long __porter_globaltimer() {
  return static_cast<unsigned long long>(wall_clock64()) * (1000000000ull / PORTER_WALL_CLOCK_HZ);
}
__device__ inline void __porter_nanosleep(unsigned int ns) {
  unsigned int n = static_cast<unsigned int>((static_cast<unsigned long long>(ns) * 2200u + 32000u) / 64000u);
  for (; n >= 127u; n -= 127u) __builtin_amdgcn_s_sleep(127);
  if (n & 64u) __builtin_amdgcn_s_sleep(64);
  if (n & 32u) __builtin_amdgcn_s_sleep(32);
  if (n & 16u) __builtin_amdgcn_s_sleep(16);
  if (n & 8u) __builtin_amdgcn_s_sleep(8);
  if (n & 4u) __builtin_amdgcn_s_sleep(4);
  if (n & 2u) __builtin_amdgcn_s_sleep(2);
  if (n & 1u) __builtin_amdgcn_s_sleep(1);
}
#ifndef PORTER_NO_NANOSLEEP_SHIM
__device__ inline void __nanosleep(unsigned int ns) { __porter_nanosleep(ns); }
#endif
