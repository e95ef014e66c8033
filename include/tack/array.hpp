// Arrays: a dtype and a shape over a device buffer, with the memory model of
// docs/memory-model.md. Names follow the Python API: tack::zeros({6, 3}) is tack.zeros((6, 3)),
// rows.slice(2, 4) is rows[2:4], a.item<float>({1, 2}) is a[1, 2].
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "tack/device.hpp"
#include "tack/dtype.hpp"
#include "tack/error.hpp"

namespace tack {

namespace detail {
class DeviceBuffer;
}

using Shape = std::vector<std::int64_t>;

// Strided host data (NumPy's layout): a view the C++ caller or the binding hands to copyto.
struct HostView {
  const void* data = nullptr;
  ScalarType dtype = ScalarType::f32;
  Shape shape;
  std::vector<std::int64_t> strides;  // bytes; empty means C-contiguous
};

// One entry of an index expression a[...]: an integer, a slice start:stop:step, or something
// else (recorded by its type name so the error can say what was given).
struct Slice {
  std::optional<std::int64_t> start, stop, step;
};
struct OtherIndex {
  std::string type_name;
};
using IndexItem = std::variant<std::int64_t, Slice, OtherIndex>;

// What the host memory behind a root array is, handed to a caller that promised to order its
// own accesses (the allocation is marked shared). Keeps the allocation alive.
struct ExportedMemory {
  std::uintptr_t address = 0;
  std::size_t nbytes = 0;
  std::string device;
  std::shared_ptr<const void> keepalive;
};

class Array {
 public:
  Array(std::shared_ptr<detail::DeviceBuffer> buffer, DType dtype, Shape shape, bool writable);

  DType dtype() const { return dtype_; }
  // The logical shape; a vec(n, t) array's elements are vectors, so numpy() adds a last
  // dimension of n.
  const Shape& shape() const { return shape_; }
  Shape numpy_shape() const;
  int ndim() const { return static_cast<int>(shape_.size()); }
  std::int64_t size() const;  // number of (logical) elements
  std::size_t nbytes() const;
  bool writable() const { return writable_; }
  Device device() const;
  // The write counter of the whole allocation, shared by every view.
  std::uint64_t version() const;
  // A view of another array's memory: a row slice, or a reshape (as NumPy's a.reshape is a view).
  bool is_view() const;
  // Handed outside Tack (DLPack export, wrapped pointer)?
  bool shared() const;
  std::uintptr_t address() const;

  // Views: same memory. reshape keeps the element count (ValueError otherwise);
  // slice takes rows [start, stop) of the first dimension with Python's bounds.
  Array reshape(const Shape& new_shape) const;
  Array slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
              std::optional<std::int64_t> step = std::nullopt) const;

  // a[...] of Python: a full index reads one element (a Scalar, or n Scalars for a vector
  // element); a single slice makes a row view. Anything else is refused.
  std::variant<Array, Scalar, std::vector<Scalar>> index(const std::vector<IndexItem>& key) const;
  // Reads one element: a.item<float>({1, 2}) is a[1, 2]. Python bounds; IndexError outside.
  template <class T>
  T item(std::initializer_list<std::int64_t> index) const {
    T out;
    read_element(std::span<const std::int64_t>(index.begin(), index.size()), &out, sizeof(T),
                 scalar_type_of<T>());
    return out;
  }
  // Raw element read: `out` receives itemsize() bytes of the array's dtype.
  void read_element(std::span<const std::int64_t> index, void* out) const;

  void fill(const Scalar& value) const;
  void fill(double value) const { fill(Scalar::from(value)); }
  // Sets every element to one vector or matrix value: dtype().components() values (a matrix's
  // row-major); ValueError for another count.
  void fill(std::span<const Scalar> element) const;
  // Copies the whole array to host memory, C-contiguous, in the array's dtype.
  void to_host(void* dst, std::size_t dst_nbytes) const;
  template <class T>
  std::vector<T> to_vector() const {
    std::vector<T> v(static_cast<std::size_t>(size()) * dtype_.components());
    check_host_type(sizeof(T), scalar_type_of<T>());
    to_host(v.data(), v.size() * sizeof(T));
    return v;
  }

  // Python's a[...] = x and iter(a) are refused: these throw TypeError saying what to use.
  [[noreturn]] void refuse_item_assignment() const;
  [[noreturn]] void refuse_iteration() const;
  // len(a): the first dimension; TypeError for a zero-dimensional array.
  std::int64_t len() const;
  // NumPy's __array__(copy=False) asks for host memory without a copy, which an array cannot
  // give (its memory is a device buffer): ValueError naming np.asarray and np.from_dlpack.
  [[noreturn]] void refuse_zero_copy_host_view() const;

  // Hands the allocation outside Tack. Refused for views (export the root, or a copy).
  ExportedMemory export_memory() const;

  const std::shared_ptr<detail::DeviceBuffer>& buffer() const { return buffer_; }
  // RuntimeError naming `what` when the array is read-only.
  void check_writable(const char* what) const;

 private:
  void read_element(std::span<const std::int64_t> index, void* out, std::size_t size,
                    ScalarType as) const;
  void check_host_type(std::size_t size, ScalarType as) const;
  std::size_t element_offset(std::span<const std::int64_t> index) const;
  // Fills the buffer with one element's bytes, repeated.
  void fill_pattern(std::span<const std::byte> pattern) const;

  std::shared_ptr<detail::DeviceBuffer> buffer_;
  DType dtype_;
  Shape shape_;
  bool writable_;
  bool reshaped_ = false;  // made by reshape(): a view, though over the whole allocation
};

// Constructors, with NumPy's signatures. Contents of empty() are unspecified (not filled).
Array empty(const Shape& shape, DType dtype = f32, const Device& device = default_device());
Array zeros(const Shape& shape, DType dtype = f32, const Device& device = default_device());
Array ones(const Shape& shape, DType dtype = f32, const Device& device = default_device());
Array full(const Shape& shape, const Scalar& fill_value, DType dtype = f32,
           const Device& device = default_device());
Array empty_like(const Array& a);
Array zeros_like(const Array& a);
// A new array holding a copy of host data; dtype defaults to the data's.
Array array(const HostView& data, std::optional<DType> dtype = std::nullopt,
            const Device& device = default_device());
template <class T>
Array array(const std::vector<T>& data, const Shape& shape, const Device& d = default_device());

// Copies host data into `a`: converts the dtype, broadcasts to a.numpy_shape() (ValueError when
// it neither matches nor broadcasts), RuntimeError when `a` is read-only.
void copyto(const Array& a, const HostView& data);
// Copies array `src` into `a`, on any devices: the same conversion and broadcasting as host
// data. `src` is read in full before `a` is written, so overlapping views are fine; reading waits
// for the launches queued before on `src`'s device, writing is queued behind those on `a`'s.
void copyto(const Array& a, const Array& src);
// A new array on `device` holding a copy of `src` (in its dtype unless one is given).
Array array(const Array& src, std::optional<DType> dtype = std::nullopt,
            const Device& device = default_device());
// Copies into `host` (C-contiguous, in a.numpy_shape() and the given dtype).
void copy_to_host(const Array& a, void* host, ScalarType host_dtype, std::size_t host_nbytes);

// Wraps memory Tack did not allocate; never freed by Tack, read-only unless writable. The caller
// keeps the memory alive for as long as the array and its views are used. `hold` (optional) is
// kept alive with the array. `address` nullopt means the value given was not an address at all
// (`what` describes it): TypeError. On backends that distinguish memory spaces, an address of
// the wrong space is a ValueError.
Array array_from_ptr(std::optional<std::uintptr_t> address, DType dtype, const Shape& shape,
                     bool writable = false, const Device& device = default_device(),
                     std::shared_ptr<void> hold = {}, const std::string& what = "");

// What a host array object handed to array_from_ptr (a NumPy array) says about its memory;
// the binding reports the facts, the rules are checked here.
struct HostArrayFacts {
  std::uintptr_t address = 0;
  std::size_t nbytes = 0;
  bool c_contiguous = true;
  bool writable = true;
  std::string what;  // how messages name it: "a NumPy array of shape (3, 4) and dtype float64"
};
// array_from_ptr over a host array object: the object must be C-contiguous, hold at least the
// bytes that `shape` of `dtype` needs, and be writable when writable=true is asked (ValueError
// otherwise, saying what to do). `hold` (the object) is kept alive with the array and its views.
Array array_from_host_array(const HostArrayFacts& facts, DType dtype, const Shape& shape,
                            bool writable = false, const Device& device = default_device(),
                            std::shared_ptr<void> hold = {});

// Structure-of-arrays: component arrays of one shape, sliced component by component.
class SoaArray {
 public:
  explicit SoaArray(std::vector<Array> components);
  const std::vector<Array>& components() const { return components_; }
  const Shape& shape() const { return components_.front().shape(); }
  SoaArray slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                 std::optional<std::int64_t> step = std::nullopt) const;

 private:
  std::vector<Array> components_;
};
SoaArray empty_soa(const Shape& shape, const std::vector<DType>& dtypes,
                   const Device& device = default_device());

namespace detail {
std::int64_t element_count(const Shape& shape, const char* what);
// The bytes `shape` of `dtype` spans; ValueError naming `what` when the count or the byte size
// does not fit in 64 bits.
std::size_t byte_count(const Shape& shape, DType dtype, const char* what);
std::string shape_str(const Shape& shape);
}  // namespace detail

template <class T>
Array array(const std::vector<T>& data, const Shape& shape, const Device& d) {
  HostView v;
  v.data = data.data();
  v.dtype = scalar_type_of<T>();
  v.shape = shape;
  if (detail::element_count(shape, "tack::array") != static_cast<std::int64_t>(data.size()))
    throw ValueError("tack::array: " + std::to_string(data.size()) + " values cannot fill shape " +
                     detail::shape_str(shape) + "; pass as many values as the shape has elements");
  return array(v, std::nullopt, d);
}

}  // namespace tack
