// C declarations bound by gpuscipy_core.libs.cufft, as in the vendor
// headers (cufft.h, cufftXt.h); input of gpuscipy_core/libs/_generate.py.
// Marks: OUT = output scalar the Python function returns; INOUT = in/out
// scalar passed by value and returned; SEQ = input int array given as a
// Python sequence (or None for NULL). Other pointers are Python ints.
// header: cufftXt.h
// status: cufftResult

enum cufftResult { CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3, CUFFT_INVALID_VALUE = 4, CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6, CUFFT_SETUP_FAILED = 7, CUFFT_INVALID_SIZE = 8, CUFFT_UNALIGNED_DATA = 9, CUFFT_INVALID_DEVICE = 11, CUFFT_NO_WORKSPACE = 13, CUFFT_NOT_IMPLEMENTED = 14, CUFFT_NOT_SUPPORTED = 16, CUFFT_MISSING_DEPENDENCY = 17, CUFFT_NVRTC_FAILURE = 18, CUFFT_NVJITLINK_FAILURE = 19, CUFFT_NVSHMEM_FAILURE = 20 };
enum cufftType { CUFFT_R2C = 42, CUFFT_C2R = 44, CUFFT_C2C = 41, CUFFT_D2Z = 106, CUFFT_Z2D = 108, CUFFT_Z2Z = 105 };
enum cufftCompatibility { CUFFT_COMPATIBILITY_FFTW_PADDING = 1 };
enum cufftProperty { NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT = 1, NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS = 2, NVFFT_PLAN_PROPERTY_INT64_BLUESTEIN_ONLY = 3, NVFFT_PLAN_PROPERTY_INT64_DISABLE_FMA = 4 };
enum cufftXtSubFormat { CUFFT_XT_FORMAT_INPUT = 0, CUFFT_XT_FORMAT_OUTPUT = 1, CUFFT_XT_FORMAT_INPLACE = 2, CUFFT_XT_FORMAT_INPLACE_SHUFFLED = 3, CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED = 4, CUFFT_XT_FORMAT_DISTRIBUTED_INPUT = 5, CUFFT_XT_FORMAT_DISTRIBUTED_OUTPUT = 6, CUFFT_FORMAT_UNDEFINED = 7 };
enum cufftXtCopyType { CUFFT_COPY_HOST_TO_DEVICE = 0, CUFFT_COPY_DEVICE_TO_HOST = 1, CUFFT_COPY_DEVICE_TO_DEVICE = 2, CUFFT_COPY_UNDEFINED = 3 };
enum cufftXtQueryType { CUFFT_QUERY_1D_FACTORS = 0, CUFFT_QUERY_UNDEFINED = 1 };
enum cufftXtWorkAreaPolicy { CUFFT_WORKAREA_MINIMAL = 0, CUFFT_WORKAREA_USER = 1, CUFFT_WORKAREA_PERFORMANCE = 2 };
enum cufftXtCallbackType { CUFFT_CB_LD_COMPLEX = 0, CUFFT_CB_LD_COMPLEX_DOUBLE = 1, CUFFT_CB_LD_REAL = 2, CUFFT_CB_LD_REAL_DOUBLE = 3, CUFFT_CB_ST_COMPLEX = 4, CUFFT_CB_ST_COMPLEX_DOUBLE = 5, CUFFT_CB_ST_REAL = 6, CUFFT_CB_ST_REAL_DOUBLE = 7, CUFFT_CB_UNDEFINED = 8 };
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

cufftResult cufftCreate(cufftHandle* OUT handle);
cufftResult cufftDestroy(cufftHandle plan);
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult cufftGetVersion(int* OUT version);
cufftResult cufftGetProperty(libraryPropertyType type, int* OUT value);
cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate);
cufftResult cufftSetWorkArea(cufftHandle plan, void* workArea);
cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int* SEQ n, long long int* SEQ inembed, long long int istride, long long int idist, long long int* SEQ onembed, long long int ostride, long long int odist, cufftType type, long long int batch, size_t* OUT workSize);
cufftResult cufftGetSizeMany64(cufftHandle plan, int rank, long long int* SEQ n, long long int* SEQ inembed, long long int istride, long long int idist, long long int* SEQ onembed, long long int ostride, long long int odist, cufftType type, long long int batch, size_t* OUT workSize);
cufftResult cufftEstimateMany(int rank, int* SEQ n, int* SEQ inembed, int istride, int idist, int* SEQ onembed, int ostride, int odist, cufftType type, int batch, size_t* OUT workSize);
cufftResult cufftGetSize(cufftHandle handle, size_t* OUT workSize);
cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int* SEQ n, long long int* SEQ inembed, long long int istride, long long int idist, cudaDataType inputtype, long long int* SEQ onembed, long long int ostride, long long int odist, cudaDataType outputtype, long long int batch, size_t* OUT workSize, cudaDataType executiontype);
cufftResult cufftXtExec(cufftHandle plan, void* input, void* output, int direction);
cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* idata, cufftComplex* odata, int direction);
cufftResult cufftExecR2C(cufftHandle plan, cufftReal* idata, cufftComplex* odata);
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* idata, cufftReal* odata);
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleComplex* odata, int direction);
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* idata, cufftDoubleComplex* odata);
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* idata, cufftDoubleReal* odata);
