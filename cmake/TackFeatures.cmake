# Every build option of Tack, declared in one place; tack_feature_summary() prints them.
set(_tack_features "")
macro(tack_feature name default doc)
  option(${name} "${doc}" ${default})
  list(APPEND _tack_features ${name})
endmacro()

tack_feature(TACK_PYTHON ON "Build the Python binding (nanobind)")
tack_feature(TACK_TESTS ON "Build the GoogleTest suites")
tack_feature(TACK_BENCHMARKS OFF "Build the benchmarks in bench/")
tack_feature(TACK_EXAMPLES ON "Build the C++ examples")
tack_feature(TACK_FUZZ OFF "Build the libFuzzer targets (clang only)")
tack_feature(TACK_WERROR OFF "Treat compiler warnings as errors (CI sets this)")
tack_feature(TACK_SANITIZE OFF "Build with AddressSanitizer and UndefinedBehaviorSanitizer")
tack_feature(TACK_MPI ON "Build tack::mpi (Tack arrays over MPI) where CMake finds MPI")
tack_feature(TACK_LLVM_STATIC OFF "Link LLVM's static component libraries into libtack (a library \
that runs where no LLVM is installed: tools/check_cuda_gpu.sh carries it to a GPU machine)")
tack_feature(TACK_CUDA ON "Build the CUDA device where the CUDA toolkit's headers are found \
(the driver and NVRTC are loaded at run time)")

if(TACK_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

function(tack_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
  if(TACK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

function(tack_feature_summary)
  message(STATUS "Tack features:")
  foreach(f ${_tack_features})
    message(STATUS "  ${f} = ${${f}}")
  endforeach()
  message(STATUS "  LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
  message(STATUS "  CUDA device built: ${TACK_HAVE_CUDA}")
endfunction()
