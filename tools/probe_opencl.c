/* Lists the OpenCL platforms and devices this machine answers with, and whether each device
 * offers the coarse-grained shared virtual memory Tack's OpenCL backend needs. Loads the ICD
 * loader at run time, as Tack does. Build: cc -O2 -o probe_opencl tools/probe_opencl.c -ldl */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>

typedef cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id*, cl_uint*);
typedef cl_int (*GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void*, size_t*);
typedef cl_int (*GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id*, cl_uint*);
typedef cl_int (*GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void*, size_t*);

int main(void) {
  void* lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("no OpenCL ICD loader: %s\n", dlerror());
    return 0;
  }
  GetPlatformIDs get_platforms = (GetPlatformIDs)dlsym(lib, "clGetPlatformIDs");
  GetPlatformInfo platform_info = (GetPlatformInfo)dlsym(lib, "clGetPlatformInfo");
  GetDeviceIDs get_devices = (GetDeviceIDs)dlsym(lib, "clGetDeviceIDs");
  GetDeviceInfo device_info = (GetDeviceInfo)dlsym(lib, "clGetDeviceInfo");
  cl_platform_id platforms[16];
  cl_uint np = 0;
  cl_int err = get_platforms(16, platforms, &np);
  if (err != CL_SUCCESS || np == 0) {
    printf("no OpenCL platform answers (error %d)\n", err);
    return 0;
  }
  for (cl_uint p = 0; p < np; ++p) {
    char name[256] = "", version[256] = "";
    platform_info(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
    platform_info(platforms[p], CL_PLATFORM_VERSION, sizeof version, version, NULL);
    printf("platform %u: %s (%s)\n", p, name, version);
    cl_device_id devices[16];
    cl_uint nd = 0;
    if (get_devices(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS) continue;
    for (cl_uint d = 0; d < nd; ++d) {
      char dname[256] = "", dversion[256] = "";
      cl_device_svm_capabilities svm = 0;
      device_info(devices[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
      device_info(devices[d], CL_DEVICE_VERSION, sizeof dversion, dversion, NULL);
      cl_int e = device_info(devices[d], CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
      printf("  device %u: %s (%s): SVM capabilities 0x%llx%s -> %s\n", d, dname, dversion,
             (unsigned long long)svm, e == CL_SUCCESS ? "" : " (query failed)",
             (e == CL_SUCCESS && (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) ? "usable by Tack"
                                                                            : "skipped by Tack");
    }
  }
  return 0;
}
