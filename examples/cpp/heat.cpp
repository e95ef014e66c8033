// Heat diffusion on a plate with a hot ring, written as a Tack kernel and written out as
// heat.png: a kernel program in C++ that produces an image a person can look at.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tack/tack.hpp"

namespace {

// One explicit step of the heat equation with a 5-point stencil; borders stay fixed.
const char* kStep = R"(
def heat_step(u, v, alpha):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        v[i, j] = u[i, j] + alpha * lap
)";

// Maps temperatures in [0, 1] to an RGB colour ramp (black, red, yellow, white).
const char* kColour = R"(
@tack.func
def ramp(t, lo, hi):
    return min(max((t - lo) / (hi - lo), 0.0), 1.0)

def colour(u, rgb):
    for i, j in tack.ndrange(u.shape[0], u.shape[1]):
        t = u[i, j]
        rgb[i, j, 0] = tack.u8(255.0 * ramp(t, 0.0, 0.12))
        rgb[i, j, 1] = tack.u8(255.0 * ramp(t, 0.08, 0.24))
        rgb[i, j, 2] = tack.u8(255.0 * ramp(t, 0.2, 0.36))
)";

// A minimal PNG writer (stored, uncompressed deflate blocks), enough for an example.
std::uint32_t crc32(const std::uint8_t* p, std::size_t n, std::uint32_t c = 0xffffffffu) {
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c;
}

void write_png(const std::string& path, int w, int h, const std::vector<std::uint8_t>& rgb) {
  std::vector<std::uint8_t> raw;  // each row: filter byte 0, then RGB
  for (int y = 0; y < h; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), rgb.begin() + y * w * 3, rgb.begin() + (y + 1) * w * 3);
  }
  std::vector<std::uint8_t> z = {0x78, 0x01};
  std::uint32_t a = 1, b = 0;
  for (std::size_t off = 0; off < raw.size(); off += 65535) {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - off);
    z.push_back(off + len == raw.size() ? 1 : 0);
    z.push_back(len & 0xff);
    z.push_back(len >> 8);
    z.push_back(~len & 0xff);
    z.push_back((~len >> 8) & 0xff);
    z.insert(z.end(), raw.begin() + off, raw.begin() + off + len);
  }
  for (std::uint8_t v : raw) a = (a + v) % 65521, b = (b + a) % 65521;
  const std::uint32_t adler = (b << 16) | a;
  for (int s = 24; s >= 0; s -= 8) z.push_back((adler >> s) & 0xff);

  std::ofstream out(path, std::ios::binary);
  auto be32 = [&](std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.put(static_cast<char>((v >> s) & 0xff));
  };
  auto chunk = [&](const char* type, const std::vector<std::uint8_t>& data) {
    be32(static_cast<std::uint32_t>(data.size()));
    std::vector<std::uint8_t> td(type, type + 4);
    td.insert(td.end(), data.begin(), data.end());
    out.write(reinterpret_cast<const char*>(td.data()), static_cast<std::streamsize>(td.size()));
    be32(crc32(td.data(), td.size()) ^ 0xffffffffu);
  };
  const char sig[] = "\x89PNG\r\n\x1a\n";
  out.write(sig, 8);
  std::vector<std::uint8_t> ihdr;
  for (std::uint32_t v : {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h)})
    for (int s = 24; s >= 0; s -= 8) ihdr.push_back((v >> s) & 0xff);
  ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8-bit RGB
  chunk("IHDR", ihdr);
  chunk("IDAT", z);
  chunk("IEND", {});
}

}  // namespace

int main() {
  const int n = 256;
  std::vector<float> init(n * n, 0.0f);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double r = std::hypot(i - n / 2.0, j - n / 2.0);
      if (std::abs(r - n / 4.0) < 6.0) init[i * n + j] = 1.0f;  // the hot ring
    }
  }
  tack::Array u = tack::array(init, {n, n});
  tack::Array v = tack::array(init, {n, n});
  tack::Kernel step = tack::kernel(kStep);
  for (int it = 0; it < 500; ++it) {
    step(u, v, 0.2);
    std::swap(u, v);
  }
  tack::Array rgb = tack::zeros({n, n, 3}, tack::u8);
  tack::kernel(kColour, "colour")(u, rgb);
  write_png("heat.png", n, n, rgb.to_vector<std::uint8_t>());
  std::printf("500 heat steps on %dx%d: centre %.4f, ring %.4f; wrote heat.png\n", n, n,
              u.item<float>({n / 2, n / 2}), u.item<float>({n / 2, n / 2 + n / 4}));
  return 0;
}
