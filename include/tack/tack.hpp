// Tack's public C++ API in one include.
#pragma once

#include "tack/about.hpp"
#include "tack/algorithms.hpp"
#include "tack/array.hpp"
#include "tack/dataset.hpp"
#include "tack/device.hpp"
#include "tack/dlpack.hpp"
#include "tack/dtype.hpp"
#include "tack/error.hpp"
#include "tack/kernel.hpp"
#include "tack/log.hpp"
#include "tack/strided.hpp"
#include "tack/texture.hpp"
