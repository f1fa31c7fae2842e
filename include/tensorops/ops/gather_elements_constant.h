// GatherElementsConstant: GatherElements with indices fixed once (model
// constants), like Simd's indexConst / SetIndex.
//
// Construction validates the indices against the data dims once (throwing
// as GatherElements with Bounds::kError would), wraps negative indices and
// keeps a dense copy, and looks for a pattern with a faster path:
//   kSlices   every index is constant across the dims after the axis, so
//             out[o, c, i...] = data[o, k(o, c), i...] copies whole slices
//             (contiguous rows), like Gather with one index row per outer
//             position; the copy keeps one index per slice.
//   kGeneral  anything else: the element-wise kernel without checks.
// Calls then skip all index checks. The kept indices lie in [0, s) and are
// stored as int32 whatever Index is, so int64 indices stream half the bytes
// per call (0.72 -> 0.50 ns per element in Simd's 64x256x64 form); the axis
// must therefore have fewer than 2^31 elements (else kSizeOverflow: use
// GatherElements). InternalBufferSize() is the memory the object owns.
// Thread-safe to call concurrently on different data.
// Kernels (for TENSOROPS_INSTANTIATE): GatherElementsKernel<sizeof(T),
// int32_t> and GatherKernel<int32_t>, whatever Index is.
#ifndef TENSOROPS_OPS_GATHER_ELEMENTS_CONSTANT_H_
#define TENSOROPS_OPS_GATHER_ELEMENTS_CONSTANT_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensorops/detail/checks.h"
#include "tensorops/dispatch.h"
#include "tensorops/layout/tensor_view.h"
#include "tensorops/ops/gather.h"
#include "tensorops/ops/gather_elements.h"

namespace tensorops {

template <IndexType Index>
class GatherElementsConstant {
 public:
  enum class Pattern : uint8_t { kGeneral, kSlices };
  // The type the normalised indices are kept as, whatever Index is.
  using KeptIndex = int32_t;

  template <Layout L>
  GatherElementsConstant(const Dims& data_dims, const TensorView<const Index, L>& indices,
                         int axis)
      : data_dims_(data_dims), dims_(indices.dims()) {
    constexpr const char* kOp = "GatherElementsConstant";
    if (data_dims.size() != dims_.size()) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": data has rank ", data_dims.size(),
                   " but indices has rank ", dims_.size());
    }
    axis_ = detail::NormalizeAxis(axis, dims_.size(), kOp);
    for (size_t d = 0; d < dims_.size(); ++d) {
      if (d != axis_ && dims_[d] > data_dims[d]) {
        detail::Fail(ErrorCode::kShapeMismatch, kOp, ": indices dim[", d, "] = ", dims_[d],
                     " exceeds data dim[", d, "] = ", data_dims[d]);
      }
    }
    if (data_dims[axis_] > static_cast<size_t>(std::numeric_limits<KeptIndex>::max())) {
      detail::Fail(ErrorCode::kSizeOverflow, kOp, ": data dim[", axis_, "] = ", data_dims[axis_],
                   " has 2^31 or more elements; constant indices are kept as int32 (use "
                   "GatherElements for such an axis)");
    }
    const auto s = static_cast<int64_t>(data_dims[axis_]);
    if (!indices.IsEmpty()) {
      detail::CheckCanIndex(data_dims[axis_], axis_, Bounds::kError, kOp);
      detail::CheckIndices(indices, s, kOp);
    }
    Normalize(indices, s);
    DetectSlices();
  }

  Pattern pattern() const { return pattern_; }

  // Bytes owned: the normalised indices, or one index per slice.
  size_t InternalBufferSize() const {
    return (normalized_.capacity() + per_slice_.capacity()) * sizeof(KeptIndex);
  }

  template <class S, Layout LD, class O, Layout LO, Executor E = SerialExecutor>
  void operator()(const TensorView<S, LD>& data, const TensorView<O, LO>& out,
                  E&& executor = {}) const {
    using T = std::remove_const_t<S>;
    static_assert(std::is_same_v<O, T>, "GatherElementsConstant: out must be a mutable view of data's type");
    constexpr const char* kOp = "GatherElementsConstant";
    if (!(data.dims() == data_dims_)) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": data dims ", data.dims(),
                   " differ from the dims ", data_dims_, " the indices were checked for");
    }
    if (!(out.dims() == dims_)) {
      detail::Fail(ErrorCode::kShapeMismatch, kOp, ": out dims ", out.dims(),
                   " differ from the indices dims ", dims_);
    }
    if (detail::Overlaps(out, data)) {
      detail::Fail(ErrorCode::kAliasing, kOp, ": out overlaps data");
    }
    if (out.IsEmpty()) return;
    if (pattern_ == Pattern::kGeneral) {
      const TensorView<const KeptIndex, Strided<>> indices(normalized_.data(), dims_);
      // Normalised: every index is in [0, s), so the kernel skips the wrap.
      GatherElements<KeptIndex>{.axis = static_cast<int>(axis_), .bounds = detail::kInRange}(
          data, indices, out, executor);
      return;
    }
    // kSlices: a Gather whose index row changes with the outer position.
    typename GatherKernel<KeptIndex>::Job job{};
    job.data = reinterpret_cast<const uint8_t*>(data.data());
    job.indices = reinterpret_cast<const uint8_t*>(per_slice_.data());
    job.out = reinterpret_cast<uint8_t*>(out.data());
    job.axis_stride = data.StrideBytes(axis_);
    job.axis_size = static_cast<int64_t>(data_dims_[axis_]);
    job.bounds = detail::kInRange;
    job.outer.row = 1;  // a nest of outer loops only: one visit per position
    // per_slice_ is dense over dims [0, axis]: its stride for dim d < axis is
    // the product of dims (d, axis] times the index size.
    for (size_t d = 0; d < axis_; ++d) {
      size_t index_stride = sizeof(KeptIndex);
      for (size_t e = d + 1; e <= axis_; ++e) index_stride *= dims_[e];
      const size_t strides[3] = {data.StrideBytes(d), out.StrideBytes(d), index_stride};
      AppendLoop(job.outer, dims_[d], strides);
    }
    job.index.row = dims_[axis_];
    job.index_stride = sizeof(KeptIndex);
    job.out_step = out.StrideBytes(axis_);
    job.slice = GatherSliceNest(data, axis_ + 1, out, axis_ + 1, sizeof(T));
    detail::RunKernelOn(executor, GatherKernel<KeptIndex>{}, job);
  }

 private:
  // Copies the indices (checked) in the order of the dims, wrapped into [0, s).
  template <Layout L>
  void Normalize(const TensorView<const Index, L>& indices, int64_t s) {
    if (indices.IsEmpty()) return;
    normalized_.reserve(indices.ElementCount());
    Extents position = detail::ZeroIndex(dims_);
    do {
      const Index k = indices.at(position);
      normalized_.push_back(static_cast<KeptIndex>(k < 0 ? k + s : k));
    } while (detail::NextIndex(position, dims_, dims_.size()));
  }

  // kSlices when every index is constant across the dims after the axis;
  // then the normalised copy is replaced by one index per slice.
  void DetectSlices() {
    size_t inner = 1;
    for (size_t d = axis_ + 1; d < dims_.size(); ++d) inner *= dims_[d];
    if (normalized_.empty() || inner == 1) return;  // nothing to gain
    const size_t slices = normalized_.size() / inner;
    for (size_t i = 0; i < slices; ++i) {
      for (size_t j = 1; j < inner; ++j) {
        if (normalized_[i * inner + j] != normalized_[i * inner]) return;
      }
    }
    per_slice_.resize(slices);
    for (size_t i = 0; i < slices; ++i) per_slice_[i] = normalized_[i * inner];
    normalized_.clear();
    normalized_.shrink_to_fit();
    pattern_ = Pattern::kSlices;
  }

  Dims data_dims_;
  Dims dims_;
  size_t axis_ = 0;
  std::vector<KeptIndex> normalized_;  // in [0, s), s < 2^31
  std::vector<KeptIndex> per_slice_;
  Pattern pattern_ = Pattern::kGeneral;
};

}  // namespace tensorops

#endif  // TENSOROPS_OPS_GATHER_ELEMENTS_CONSTANT_H_
