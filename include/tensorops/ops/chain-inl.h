// Chain kernels: each stage's vector code (ApplyChainStage) and the row loop
// that loads x once, runs every stage in registers and stores y once, walked
// over the EltwiseNest that Chain built (see chain.h).
//
// Included once per target through tensorops/kernels-inl.h.
#if defined(TENSOROPS_OPS_CHAIN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSOROPS_OPS_CHAIN_INL_H_
#undef TENSOROPS_OPS_CHAIN_INL_H_
#else
#define TENSOROPS_OPS_CHAIN_INL_H_
#endif

#include <hwy/highway.h>

#include "tensorops/detail/row-inl.h"
#include "tensorops/detail/storage-inl.h"
#include "tensorops/ops/chain.h"
#include "tensorops/ops/eltwise-inl.h"
#include "tensorops/ops/unary-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The current row of every view: its first element, and 0 as the step of an
// operand that repeats one value along the row.
struct ChainRow {
  const void* const* data;
  const size_t* step;
};

// Elements [i, i + count) of view `view` as float: a whole vector when
// kFull (count = Lanes(d)), else a tail. The main loop's copy has no tail
// path: its library call would make the compiler spill the loop's vectors.
template <class T, bool kFull, class D>
HWY_INLINE hn::Vec<D> LoadChainOperand(D d, const ChainRow& row, size_t view, size_t i,
                                       size_t count) {
  const T* p = static_cast<const T*>(row.data[view]);
  if (row.step[view] == 0) {
    if constexpr (hwy::IsSame<T, float>()) {
      return hn::Set(d, *p);
    } else {
      return hn::Set(d, hn::GetLane(LoadTailAsF32<T>(d, p, 1)));
    }
  }
  if constexpr (kFull) {
    (void)count;
    return LoadAsF32<T>(d, p + i);
  } else {
    return LoadTailAsF32<T>(d, p + i, count);
  }
}

template <bool kFull, class D, UnaryKind kKind, Accuracy kAccuracy>
HWY_INLINE hn::Vec<D> ApplyChainStage(D d, hn::Vec<D> x,
                                      const detail::UnaryStageState<kKind, kAccuracy>& s,
                                      const ChainRow&, size_t, size_t) {
  return ApplyUnary<kKind, kAccuracy>(d, x, s.params);
}

template <bool kFull, class D>
HWY_INLINE hn::Vec<D> ApplyChainStage(D d, hn::Vec<D> x, const detail::ChannelAffineState& s,
                                      const ChainRow& row, size_t i, size_t count) {
  return hn::MulAdd(x, LoadChainOperand<float, kFull>(d, row, s.scale_view, i, count),
                    LoadChainOperand<float, kFull>(d, row, s.shift_view, i, count));
}

template <bool kFull, class D, EltwiseKind kKind, class T>
HWY_INLINE hn::Vec<D> ApplyChainStage(D d, hn::Vec<D> x,
                                      const detail::EltwiseWithState<kKind, T>& s,
                                      const ChainRow& row, size_t i, size_t count) {
  return Fold<kKind>(d, x, LoadChainOperand<T, kFull>(d, row, s.view, i, count));
}

template <bool kFull, class D, class States, size_t... kI>
HWY_INLINE hn::Vec<D> ApplyChainStages(D d, hn::Vec<D> x, const States& states,
                                       const ChainRow& row, size_t i, size_t count,
                                       std::index_sequence<kI...>) {
  (void)d, (void)states, (void)row, (void)i, (void)count;  // a chain of no stage
  ((x = ApplyChainStage<kFull>(d, x, std::get<kI>(states), row, i, count)), ...);
  return x;
}

template <class TS, class TD, class States>
struct Impl<ChainKernel<TS, TD, States>> {
  static void Run(const ChainKernel<TS, TD, States>&,
                  const typename ChainKernel<TS, TD, States>::Job& job) {
    const typename FusedStagesTag<States>::type d;
    const size_t lanes = hn::Lanes(d);
    constexpr auto kStages = std::make_index_sequence<std::tuple_size_v<States>>{};
    const size_t n = job.nest.inputs, count = job.nest.row;
    const void* data[kMaxEltwiseInputs];
    const ChainRow row{data, job.nest.row_step};
    // Copies the row loop owns: stores to y cannot alias them, so the
    // compiler keeps the stages' parameters in registers.
    const States states = job.states;
    ForEachEltwiseRow(job.nest, [&](const size_t* offsets) {
      for (size_t k = 0; k < n; ++k) data[k] = detail::AdvanceBytes(job.src[k], offsets[k]);
      const TS* x = static_cast<const TS*>(data[0]);
      TD* y = detail::AdvanceBytes(job.dst, offsets[n]);
      size_t i = 0;
      for (; i + lanes <= count; i += lanes) {
        const auto v = ApplyChainStages<true>(d, LoadAsF32<TS>(d, x + i), states, row, i,
                                              lanes, kStages);
        StoreFromF32<TD>(d, v, y + i);
      }
      if (i < count) {
        const size_t rest = count - i;
        const auto v = ApplyChainStages<false>(d, LoadTailAsF32<TS>(d, x + i, rest), states,
                                               row, i, rest, kStages);
        StoreTailFromF32<TD>(d, v, y + i, rest);
      }
    });
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace tensorops
HWY_AFTER_NAMESPACE();

#endif  // TENSOROPS_OPS_CHAIN_INL_H_
