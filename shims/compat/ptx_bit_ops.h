// porter compat: PTX's bfe, bfi and prmt (default mode), exactly, for the operands porter's
// PTX006 rewrite cannot hand to __builtin_amdgcn_ubfe/sbfe/perm: run-time positions and lengths
// (V_BFE takes them mod 32, PTX clamps them to 0-255 and fills), and prmt selectors that
// replicate the sign of byte 0, 2, 4 or 6 (V_PERM_B32 replicates bytes 1, 3, 5, 7 only).
// Semantics from the PTX ISA 8.5 sections "bfe", "bfi" and "prmt"; tests/agents/test_ptx_catalog.py
// checks them against models of that text, and they matched the PTX instructions on an H200 for
// 2^20 random operands. __host__ too, so a CPU reference can share them.
__host__ __device__ inline unsigned int __porter_bfe_u32(unsigned int a, unsigned int pos, unsigned int len) {
  pos &= 0xffu;
  len &= 0xffu;
  if (len == 0u || pos >= 32u) return 0u;
  unsigned int n = len < 32u - pos ? len : 32u - pos;  // bits of the field inside a
  unsigned int x = a >> pos;
  return n == 32u ? x : x & ((1u << n) - 1u);
}
__host__ __device__ inline int __porter_bfe_s32(int a, unsigned int pos, unsigned int len) {
  pos &= 0xffu;
  len &= 0xffu;
  if (len == 0u) return 0;
  if (pos >= 32u) return a < 0 ? -1 : 0;  // every bit is a[31]
  unsigned int n = len < 32u - pos ? len : 32u - pos;  // sign bit: a[min(pos + len - 1, 31)]
  unsigned int x = static_cast<unsigned int>(a) >> pos;
  return n == 32u ? static_cast<int>(x) : static_cast<int>(x << (32u - n)) >> (32u - n);
}
__host__ __device__ inline unsigned int __porter_bfi_b32(unsigned int a, unsigned int b, unsigned int pos,
                                                         unsigned int len) {
  pos &= 0xffu;
  len &= 0xffu;
  if (len == 0u || pos >= 32u) return b;
  unsigned int n = len < 32u - pos ? len : 32u - pos;
  unsigned int mask = (n == 32u ? ~0u : (1u << n) - 1u) << pos;
  return (b & ~mask) | ((a << pos) & mask);
}
__host__ __device__ inline unsigned int __porter_prmt_b32(unsigned int a, unsigned int b, unsigned int c) {
  unsigned long long x = (static_cast<unsigned long long>(b) << 32) | a;  // bytes 0-3 from a, 4-7 from b
  unsigned int d = 0u;
  for (int i = 0; i < 4; ++i) {
    unsigned int sel = (c >> (4 * i)) & 0xfu;
    unsigned int byte = static_cast<unsigned int>(x >> (8 * (sel & 7u))) & 0xffu;
    if (sel & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;  // replicate the byte's sign bit
    d |= byte << (8 * i);
  }
  return d;
}
