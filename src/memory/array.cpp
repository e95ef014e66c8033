// Array: construction, element reads, host transfers, fills and export.
#include "tack/array.hpp"

#include <cstring>
#include <limits>
#include <sstream>

#include "memory/device_buffer.hpp"
#include "memory/host_convert.hpp"
#include "runtime/backend.hpp"
#include "support/error.hpp"

namespace tack {

namespace detail {

std::int64_t element_count(const Shape& shape, const char* what) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) {
      throw ValueError(std::string(what) + ": negative dimension " + std::to_string(d) +
                       " in shape " + shape_str(shape) + "; dimensions must be >= 0");
    }
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) {
      throw ValueError(std::string(what) + ": shape " + shape_str(shape) +
                       " has more elements than fit in 64 bits; use a smaller shape");
    }
    n *= d;
  }
  return n;
}

std::size_t byte_count(const Shape& shape, DType dtype, const char* what) {
  check_array_dtype(dtype, what);
  const std::int64_t n = element_count(shape, what);
  const std::size_t item = dtype.itemsize();
  if (n != 0 && static_cast<std::uint64_t>(n) > std::numeric_limits<std::size_t>::max() / item) {
    throw ValueError(std::string(what) + ": shape " + shape_str(shape) + " of " + dtype.str() +
                     " needs more bytes than fit in 64 bits (" + std::to_string(n) +
                     " elements of " + std::to_string(item) + " bytes); use a smaller shape");
  }
  return static_cast<std::size_t>(n) * item;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream o;
  o << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) o << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) o << ',';
  o << ')';
  return o.str();
}

}  // namespace detail

using detail::element_count;
using detail::shape_str;

Array::Array(std::shared_ptr<detail::DeviceBuffer> buffer, DType dtype, Shape shape, bool writable)
    : buffer_(std::move(buffer)), dtype_(dtype), shape_(std::move(shape)), writable_(writable) {
  TACK_INTERNAL_ASSERT(buffer_ != nullptr, "array without a buffer");
  check_array_dtype(dtype_, "tack::Array");
  TACK_INTERNAL_ASSERT(
      static_cast<std::size_t>(element_count(shape_, "array")) * dtype_.itemsize() <=
          buffer_->nbytes(),
      "array larger than its buffer");
}

Shape Array::numpy_shape() const {
  Shape s = shape_;
  if (dtype_.is_matrix()) {
    s.push_back(dtype_.matrix_rows());
    s.push_back(dtype_.matrix_cols);
  } else if (dtype_.is_vector()) {
    s.push_back(dtype_.vector_n);
  }
  return s;
}

std::int64_t Array::size() const {
  return element_count(shape_, "size");
}
std::size_t Array::nbytes() const {
  return static_cast<std::size_t>(size()) * dtype_.itemsize();
}
Device Array::device() const {
  return Device(buffer_->backend());
}
std::uint64_t Array::version() const {
  return buffer_->version();
}
bool Array::is_view() const {
  return reshaped_ || buffer_->is_view();
}
bool Array::shared() const {
  return buffer_->shared();
}
std::uintptr_t Array::address() const {
  return buffer_->address();
}

void Array::check_writable(const char* what) const {
  if (writable_) return;
  throw RuntimeError(std::string("cannot ") + what + " a read-only " + dtype_.str() +
                     " array of shape " + shape_str(shape_) +
                     " (wrapped or imported read-only); copy it with tack.array(a.numpy()) "
                     "first, or wrap the memory with writable=True if it may be written");
}

std::size_t Array::element_offset(std::span<const std::int64_t> index) const {
  if (index.size() != shape_.size()) {
    throw IndexError("index with " + std::to_string(index.size()) + " entries for an array of " +
                     std::to_string(shape_.size()) + " dimensions, shape " + shape_str(shape_) +
                     "; give one index per dimension, or slice rows with a[i:j]");
  }
  std::size_t flat = 0;
  for (std::size_t k = 0; k < index.size(); ++k) {
    std::int64_t i = index[k];
    const std::int64_t n = shape_[k];
    if (i < 0) i += n;  // Python: negative from the end
    if (i < 0 || i >= n) {
      throw IndexError("index " + std::to_string(index[k]) + " is out of bounds for axis " +
                       std::to_string(k) + " with size " + std::to_string(n) + " (shape " +
                       shape_str(shape_) + ")");
    }
    flat = flat * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
  }
  return flat * dtype_.itemsize();
}

void Array::read_element(std::span<const std::int64_t> index, void* out) const {
  const std::size_t off = element_offset(index);
  buffer_->read_range(off, dtype_.itemsize(), out);
}

void Array::check_host_type(std::size_t size, ScalarType as) const {
  if (as != dtype_.scalar || size != itemsize(as)) {
    throw TypeError("this array holds " + dtype_.str() + ", not " + std::string(name(as)) +
                    "; read it as its own type (" + std::string(name(dtype_.scalar)) + ")");
  }
}

void Array::read_element(std::span<const std::int64_t> index, void* out, std::size_t size,
                         ScalarType as) const {
  check_host_type(size, as);
  if (dtype_.is_vector()) {
    throw TypeError("item<T>() reads scalars; this array's elements are " + dtype_.str() +
                    "; use index() or to_vector<T>()");
  }
  read_element(index, out);
}

std::variant<Array, Scalar, std::vector<Scalar>> Array::index(
    const std::vector<IndexItem>& key) const {
  bool has_slice = false;
  for (const auto& k : key) {
    if (const auto* o = std::get_if<OtherIndex>(&k)) {
      throw TypeError("arrays are indexed with integers or one row slice i:j, not " + o->type_name +
                      "; use a.numpy() for NumPy's other indexing");
    }
    has_slice = has_slice || std::holds_alternative<Slice>(k);
  }
  if (has_slice) {
    if (key.size() != 1) {
      throw TypeError(
          "a view is one row slice a[i:j]; an index beside the slice is not supported; "
          "take the view first and read elements from it, or use a.numpy()[...]");
    }
    const auto& s = std::get<Slice>(key.front());
    return slice(s.start, s.stop, s.step);
  }
  std::vector<std::int64_t> idx;
  idx.reserve(key.size());
  for (const auto& k : key) idx.push_back(std::get<std::int64_t>(k));
  if (!dtype_.is_vector()) {
    std::byte raw[8];
    read_element(idx, raw);
    return load_scalar(dtype_.scalar, raw);
  }
  // A vector element: one index per dimension gives the vector, one more a component (a
  // matrix: two more, its row and column).
  std::int64_t component = -1;
  if (dtype_.is_matrix() && idx.size() == shape_.size() + 2) {
    const std::int64_t c = idx.back();
    idx.pop_back();
    const std::int64_t r = idx.back();
    idx.pop_back();
    const std::int64_t rows = dtype_.matrix_rows(), cols = dtype_.matrix_cols;
    const std::int64_t rr = r < 0 ? r + rows : r, cc = c < 0 ? c + cols : c;
    if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) {
      throw IndexError("element (" + std::to_string(r) + ", " + std::to_string(c) +
                       ") is out of bounds for " + dtype_.str() + " elements (rows 0 to " +
                       std::to_string(rows - 1) + ", columns 0 to " + std::to_string(cols - 1) +
                       ")");
    }
    component = rr * cols + cc;
  } else if (!dtype_.is_matrix() && idx.size() == shape_.size() + 1) {
    const std::int64_t given = idx.back();
    idx.pop_back();
    const std::int64_t n = dtype_.vector_n;
    component = given < 0 ? given + n : given;
    if (component < 0 || component >= n) {
      throw IndexError("component index " + std::to_string(given) + " is out of bounds for " +
                       dtype_.str() + " elements (valid: -" + std::to_string(n) + " to " +
                       std::to_string(n - 1) + ")");
    }
  }
  std::vector<std::byte> raw(dtype_.itemsize());
  read_element(idx, raw.data());
  const std::size_t cs = itemsize(dtype_.scalar);
  if (component >= 0) return load_scalar(dtype_.scalar, raw.data() + component * cs);
  std::vector<Scalar> out;
  for (int c = 0; c < dtype_.vector_n; ++c)
    out.push_back(load_scalar(dtype_.scalar, raw.data() + c * cs));
  return out;
}

void Array::fill(const Scalar& value) const {
  check_writable("fill");
  std::byte one[8];
  convert_scalar(value, dtype_.scalar, one);
  const std::size_t cs = itemsize(dtype_.scalar);
  std::vector<std::byte> pattern(dtype_.itemsize());
  for (int c = 0; c < dtype_.components(); ++c) std::memcpy(pattern.data() + c * cs, one, cs);
  fill_pattern(pattern);
}

void Array::fill(std::span<const Scalar> element) const {
  check_writable("fill");
  const std::size_t n = static_cast<std::size_t>(dtype_.components());
  if (element.size() != n) {
    throw ValueError("fill: the elements of this array are " + dtype_.str() + ", " +
                     std::to_string(n) + (n == 1 ? " value" : " values") + " each; got " +
                     std::to_string(element.size()) + " values");
  }
  const std::size_t cs = itemsize(dtype_.scalar);
  std::vector<std::byte> pattern(dtype_.itemsize());
  for (std::size_t c = 0; c < n; ++c) convert_scalar(element[c], dtype_.scalar, &pattern[c * cs]);
  fill_pattern(pattern);
}

void Array::fill_pattern(std::span<const std::byte> pattern) const {
  if (nbytes() == 0) return;
  // The backend first (a CPU fill of 256 KiB or more runs as a kernel through the dispatch,
  // which counts the write); otherwise the buffer's own fill.
  if (buffer_->backend()->fill_array(*this, pattern.data(), pattern.size())) return;
  buffer_->fill(pattern.data(), pattern.size());
  buffer_->bump_version();
}

void Array::to_host(void* dst, std::size_t dst_nbytes) const {
  TACK_INTERNAL_ASSERT(dst_nbytes >= nbytes(), "host destination too small");
  buffer_->to_host(dst, 0, nbytes());
}

void Array::refuse_item_assignment() const {
  throw TypeError(
      "Tack arrays do not support assignment through an index or slice (a[...] = x) outside "
      "kernels; write with tack.copyto(a[i:j], x) for rows, a.fill(value), or a kernel. If this "
      "is a kernel's loop, decorate its function with @tack.kernel: undecorated, it runs as "
      "plain Python");
}

void Array::refuse_iteration() const {
  throw TypeError(
      "Tack arrays are not iterable (each element would be a device read); iterate "
      "over a.numpy() instead");
}

std::int64_t Array::len() const {
  if (shape_.empty()) {
    // NumPy's words for the same call, then what to use.
    throw TypeError(
        "len() of unsized object: a zero-dimensional array has no first dimension; its element "
        "count is a.size (C++ a.size())");
  }
  return shape_.front();
}

ExportedMemory Array::export_memory() const {
  // A reshape covers the whole allocation, so it exports like the root; a row slice does not.
  if (buffer_->is_view()) {
    throw ValueError(
        "export_memory() needs the array that owns the allocation, and this array is a view "
        "(a[i:j] or reshape); export the root array, or a copy made with tack.array(a.numpy())");
  }
  buffer_->share();
  return ExportedMemory{buffer_->address(), buffer_->nbytes(), device().name(), buffer_};
}

// ---- constructors --------------------------------------------------------------------------

Array empty(const Shape& shape, DType dtype, const Device& device) {
  auto buffer = device.backend()->allocate(detail::byte_count(shape, dtype, "tack.empty"));
  return Array(std::move(buffer), dtype, shape, true);
}

Array zeros(const Shape& shape, DType dtype, const Device& device) {
  Array a = empty(shape, dtype, device);
  if (!a.buffer()->starts_zeroed()) a.fill(Scalar::from(std::int64_t{0}));
  return a;
}

Array ones(const Shape& shape, DType dtype, const Device& device) {
  return full(shape, Scalar::from(std::int64_t{1}), dtype, device);
}

Array full(const Shape& shape, const Scalar& fill_value, DType dtype, const Device& device) {
  // Convert first, so a value that does not fit is refused before anything is allocated.
  check_array_dtype(dtype, "tack.full");
  std::byte probe[8];
  convert_scalar(fill_value, dtype.scalar, probe);
  Array a = empty(shape, dtype, device);
  a.fill(fill_value);
  return a;
}

Array empty_like(const Array& a) {
  return empty(a.shape(), a.dtype(), a.device());
}
Array zeros_like(const Array& a) {
  return zeros(a.shape(), a.dtype(), a.device());
}

Array array(const HostView& data, std::optional<DType> dtype, const Device& device) {
  DType dt = dtype.value_or(DType(data.dtype));
  Shape shape = data.shape;
  if (dt.is_matrix()) {
    // Host data for a mat(r, c, t) array carries the matrix as its last two dimensions.
    const std::size_t n = shape.size();
    if (n < 2 || shape[n - 2] != dt.matrix_rows() || shape[n - 1] != dt.matrix_cols) {
      throw ValueError("tack.array: data of shape " + shape_str(shape) + " cannot be an array of " +
                       dt.str() + "; its last two dimensions must be (" +
                       std::to_string(dt.matrix_rows()) + ", " + std::to_string(dt.matrix_cols) +
                       ")");
    }
    shape.resize(n - 2);
  } else if (dt.is_vector()) {
    // Host data for a vec(n, t) array carries the vector as its last dimension.
    if (shape.empty() || shape.back() != dt.vector_n) {
      throw ValueError("tack.array: data of shape " + shape_str(shape) + " cannot be an array of " +
                       dt.str() + "; its last dimension must be " + std::to_string(dt.vector_n));
    }
    shape.pop_back();
  }
  Array a = empty(shape, dt, device);
  copyto(a, data);
  return a;
}

void copyto(const Array& a, const HostView& data) {
  const Shape target = a.numpy_shape();
  // The seed's order: validate (ValueError when the shape does not broadcast), then the
  // writable check (RuntimeError), before anything is touched.
  detail::broadcast_strides(data, target, "tack.copyto");
  a.check_writable("copy into");
  const std::size_t nbytes = a.nbytes();
  if (nbytes == 0) return;
  if (data.dtype == a.dtype().scalar && data.shape == target && detail::is_c_contiguous(data)) {
    a.buffer()->from_host(data.data, 0, nbytes);  // the fast path: one (parallel) copy
  } else {
    // Convert into a staging copy first, so a failure cannot leave the array half written.
    std::vector<std::byte> staging(nbytes);
    detail::convert_into(data, target, a.dtype().scalar, staging.data());
    a.buffer()->from_host(staging.data(), 0, nbytes);
  }
  a.buffer()->bump_version();
}

void copyto(const Array& a, const Array& src) {
  const Shape target = a.numpy_shape();
  const Shape from = src.numpy_shape();
  // Validate, then check writable, before the source is read (as for host data).
  detail::broadcast_strides(HostView{nullptr, src.dtype().scalar, from, {}}, target, "tack.copyto");
  a.check_writable("copy into");
  const bool same_layout = src.dtype().scalar == a.dtype().scalar && from == target;
  // Host memory on both sides, no overlap: one copy, straight from the source.
  const auto sa = src.buffer()->span(), da = a.buffer()->span();
  if (same_layout && sa && da && (sa->end <= da->begin || da->end <= sa->begin)) {
    copyto(a, HostView{reinterpret_cast<const void*>(src.address()), src.dtype().scalar, from, {}});
    return;
  }
  // Otherwise the source goes through the host (read in full first: overlap is harmless).
  std::vector<std::byte> staging(src.nbytes());
  src.to_host(staging.data(), staging.size());
  copyto(a, HostView{staging.data(), src.dtype().scalar, from, {}});
}

Array array(const Array& src, std::optional<DType> dtype, const Device& device) {
  const DType dt = dtype.value_or(src.dtype());
  if (dt.components() != src.dtype().components()) {
    throw ValueError("tack.array: an array of " + src.dtype().str() + " cannot be copied as " +
                     dt.str() + "; the vector widths differ (convert the components instead)");
  }
  Array a = empty(src.shape(), dt, device);
  copyto(a, src);
  return a;
}

void copy_to_host(const Array& a, void* host, ScalarType host_dtype, std::size_t host_nbytes) {
  if (host_dtype == a.dtype().scalar) {
    a.to_host(host, host_nbytes);
    return;
  }
  std::vector<std::byte> staging(a.nbytes());
  a.to_host(staging.data(), staging.size());
  HostView v{staging.data(), a.dtype().scalar, a.numpy_shape(), {}};
  TACK_INTERNAL_ASSERT(host_nbytes >= static_cast<std::size_t>(a.size()) * a.dtype().components() *
                                          itemsize(host_dtype),
                       "host destination too small");
  detail::convert_into(v, a.numpy_shape(), host_dtype, host);
}

Array array_from_ptr(std::optional<std::uintptr_t> address, DType dtype, const Shape& shape,
                     bool writable, const Device& device, std::shared_ptr<void> hold,
                     const std::string& what) {
  if (!address) {
    throw TypeError(
        "tack.array_from_ptr needs an address (an integer in [0, 2**64)) or a NumPy "
        "array, got " +
        (what.empty() ? std::string("something else") : what));
  }
  const std::size_t nbytes = detail::byte_count(shape, dtype, "tack.array_from_ptr");
  detail::validate_pointer(*device.backend(), *address);
  if (*address == 0 && nbytes != 0) {
    throw ValueError("tack.array_from_ptr: address 0 (a null pointer) cannot hold " +
                     std::to_string(element_count(shape, "tack.array_from_ptr")) +
                     " elements; pass the address of live memory");
  }
  if (nbytes > std::numeric_limits<std::uintptr_t>::max() - *address) {
    throw ValueError("tack.array_from_ptr: " + std::to_string(nbytes) + " bytes at address " +
                     std::to_string(*address) +
                     " would run past the end of the address space (2**64); pass a valid "
                     "address or a smaller shape");
  }
  auto buffer = device.backend()->wrap(*address, nbytes, std::move(hold));
  return Array(std::move(buffer), dtype, shape, writable);
}

// ---- devices -------------------------------------------------------------------------------

Device::Device(std::shared_ptr<detail::Backend> backend) : backend_(std::move(backend)) {}
std::string Device::name() const {
  return backend_->name();
}
std::string Device::kind() const {
  return backend_->kind();
}
void Device::synchronize() const {
  backend_->synchronize();
}

Device device(const std::string& name) {
  return Device(detail::find_backend(name));
}
std::vector<Device> devices() {
  std::vector<Device> out;
  for (auto& b : detail::all_backends()) out.emplace_back(b);
  return out;
}
Device default_device() {
  return Device(detail::default_backend());
}
void set_default_device(const Device& d) {
  detail::set_default_backend(d.backend());
}
void sync() {
  // Only devices found so far can have work queued.
  for (auto& b : detail::known_backends()) b->synchronize();
}
std::string memory_space(std::uintptr_t address, const Device& d) {
  return d.backend()->memory_space(address);
}

}  // namespace tack
