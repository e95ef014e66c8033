// The CPU kernel ABI shared by code generation and dispatch: argument slots, the two entry
// points, and the debug status record. Plain C layout, no LLVM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/ir.hpp"

namespace tack::codegen {

// Filled by the first out-of-bounds access or failed assert of a debug-mode launch. `failed` is
// set atomically (compare-and-swap 0 -> 1) so that only the first violation writes the other
// fields; read it after the launch has completed. param is the parameter index, -1 for a local
// array, or kAssertParam for an assert: then dim is the assert's site (ir::Function::asserts)
// and index, extent and extra the iteration's loop variables (as many as the parallel dims).
inline constexpr int32_t kAssertParam = -2;
struct TackDebugStatus {
  int32_t failed = 0;
  int32_t param = 0;
  int32_t dim = 0;
  int64_t index = 0;
  int64_t extent = 0;
  int64_t extra = 0;
};
static_assert(offsetof(TackDebugStatus, failed) == 0);
static_assert(offsetof(TackDebugStatus, param) == 4);
static_assert(offsetof(TackDebugStatus, dim) == 8);
static_assert(offsetof(TackDebugStatus, index) == 16);
static_assert(offsetof(TackDebugStatus, extent) == 24);
static_assert(offsetof(TackDebugStatus, extra) == 32);
static_assert(sizeof(TackDebugStatus) == 40);

// void chunk(const uint64_t* args, int64_t begin, int64_t end, TackDebugStatus* status):
// runs iterations [begin, end) of the linearized parallel loop (row-major over the ParallelFor's
// dims, the last innermost). status may be null when the variant has no bounds checks (and is
// then ignored by a checking variant too, which still skips the access).
using ChunkFn = void (*)(const uint64_t* args, int64_t begin, int64_t end, TackDebugStatus* status);
// int64_t extent(const uint64_t* args): the total iteration count (the product of the dims'
// range lengths), from the same argument slots; runs the prelude, which has no effects.
using ExtentFn = int64_t (*)(const uint64_t* args);

// Where each parameter lives in the flat args array of 8-byte slots. An array takes 1 + k
// slots: its data pointer, then the extent of each of its k logical dims as int64 (k = rank,
// plus 1 for a vec array: the vector width, last), then for a strided array (ArrayType::strided)
// the pitch: elements from one first-dimension index to the next. A scalar takes 1 slot: integers
// sign- or zero-extended by their type, bool as 0/1, f32 as its bits in the low 32 bits, f64 as its
// bits.
struct ArgLayout {
  std::vector<int> first_slot;  // per parameter
  int slot_count = 0;
};
ArgLayout arg_layout(const ir::Function& f);

// Packing helpers for callers (dispatch, tests): one scalar into its slot.
uint64_t scalar_slot_i64(int64_t v);   // any signed integer, sign-extended
uint64_t scalar_slot_u64(uint64_t v);  // any unsigned integer, zero-extended
uint64_t scalar_slot_f32(float v);
uint64_t scalar_slot_f64(double v);

}  // namespace tack::codegen
